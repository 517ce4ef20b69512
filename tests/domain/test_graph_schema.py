"""The published JSON Schema of a flow graph agrees with the product.

The story: the schema is itself valid; every graph Countersign writes passes it, down to a
document that uses every optional key; and a document the schema refuses is refused by
Countersign too (its loader raises, or its validator reports an error), so nobody who
checks an export against the schema is promised something the product will not accept.
Where the schema can say less than the validator (a transition naming a state that does
not exist), the validator is the stricter one, never the other way round.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from jsonschema import Draft202012Validator

from portal.domain import durations, graph_json, guards
from portal.domain import graph as graphs
from portal.domain.actor import Role
from portal.domain.graph import (
    MAX_FIELDS,
    MAX_GRANTS,
    MAX_LABEL_LENGTH,
    MAX_STATES,
    MAX_TRANSITIONS,
    Approval,
    BreachAction,
    CommentPolicy,
    FieldType,
    Gate,
    GranteeKind,
    OnVacancy,
    PostingOrder,
    StateRole,
)
from portal.domain.graph_json import GraphFormatError, from_json, loader, to_json
from portal.domain.locales import SUPPORTED_LOCALES
from portal.domain.validate import ESCALATION_BOUND_RANGE, LEVELS_UP_RANGE, errors_in, validate
from portal.flows import seeded
from tests.domain.test_graph_json import PROPERTY, mutated_documents
from tests.domain.test_validate import valid

BASE = "MYR"
SCHEMA_PATH = Path(graphs.__file__).with_name("graph.schema.json")
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)


def L(en: str) -> dict[str, str]:  # noqa: N802 - reads like the labels it builds
    return {"en": en, "zh": en, "ms": en}


def maximal() -> dict[str, Any]:
    """A publishable document that uses every key the format has."""
    return {
        "format": 1,
        "kind": "expense_claim",
        "labels": L("Expense claim"),
        "posting_order": "accrual_first",
        "exclusive_approval": True,
        "fields": [
            {
                "key": "category",
                "type": "choice",
                "labels": L("Category"),
                "required": True,
                "choices": [
                    {"key": "travel", "labels": L("Travel")},
                    {"key": "meals", "labels": L("Meals")},
                ],
            },
            {"key": "nights", "type": "number", "labels": L("Nights"), "required": False},
        ],
        "states": [
            {"key": "draft", "labels": L("Draft"), "role": "draft", "x": 40, "y": 200},
            {
                "key": "pending",
                "labels": L("Pending"),
                "role": "pending",
                "terminal": False,
                "deadline": {"after": "5d", "on_breach": "auto", "transition": "reject"},
                "escalate_after": "48h",
                "approval": "any",
                "x": 240,
                "y": 200,
            },
            {
                "key": "approved",
                "labels": L("Approved"),
                "role": "accrual",
                "deadline": {"after": "30m", "on_breach": "remind"},
            },
            {"key": "paid", "labels": L("Paid"), "role": "payout", "x": 640, "y": 200},
            {"key": "done", "labels": L("Received"), "role": "acknowledged", "terminal": True},
            {"key": "rejected", "labels": L("Rejected"), "role": "rejected", "x": -40, "y": -1},
        ],
        "transitions": [
            {
                "key": "submit",
                "from": "draft",
                "to": "pending",
                "gate": "requester",
                "labels": L("Submit"),
                "guard": {
                    "expression": "document.amount > 0 and document.fields.nights >= 0",
                    "message": L("Enter an amount."),
                },
                "comment": "optional",
                "reverses": False,
                "order": 1,
                "vertices": [[100, 150], [180, 150]],
            },
            {"key": "approve", "from": "pending", "to": "approved", "gate": "target", "labels": L("Approve")},
            {"key": "pay", "from": "approved", "to": "paid", "gate": "target", "labels": L("Pay")},
            {"key": "acknowledge", "from": "paid", "to": "done", "gate": "requester", "labels": L("Confirm")},
            {"key": "reject", "from": "pending", "to": "rejected", "gate": "advance", "labels": L("Reject"), "comment": "required", "order": 2},
            {"key": "reject", "from": "approved", "to": "rejected", "gate": "advance", "labels": L("Reject"), "comment": "required", "reverses": True, "order": 2},
            {"key": "revise", "from": "rejected", "to": "draft", "gate": "requester", "labels": L("Revise")},
        ],
        "grants": [
            {
                "state": "approved",
                "grantee": {"kind": "superior"},
                "min_amount": "0.00",
                "currency": "MYR",
                "on_vacancy": "escalate",
                "max_escalation_levels": 2,
            },
            {
                "state": "approved",
                "grantee": {"kind": "unit_head", "walk_up": True},
                "min_amount": "5000.00",
                "currency": "MYR",
                "on_vacancy": "refuse",
            },
            {"state": "approved", "grantee": {"kind": "levels_up", "levels": 2}},
            {"state": "paid", "grantee": {"kind": "role", "role": "admin"}},
            {"state": "paid", "all_states": False, "grantee": {"kind": "member", "member": 7}},
            {"state": "paid", "grantee": {"kind": "position", "position": 3}},
            {"all_states": True, "grantee": {"kind": "role", "role": "auditor"}},
        ],
    }  # fmt: skip


def schema_errors(document: Any) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(document)]


def product_refusal(document: Any) -> str | None:
    """Why Countersign refuses the document (a loader or validator code), or None."""
    try:
        graph = from_json(document)
    except GraphFormatError as exc:
        return exc.code
    errors = errors_in(validate(graph, base_currency=BASE))
    return errors[0].code if errors else None


# --- the schema itself ---------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$id"] == "https://countersign.invalid/schema/flow-graph.json"
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _objects(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found += _objects(value)
    elif isinstance(node, list):
        for value in node:
            found += _objects(value)
    return found


def test_every_object_in_the_schema_is_closed_and_every_definition_explains_itself():
    objects = _objects(SCHEMA)
    assert len(objects) == 10  # the document, labels and the eight element kinds
    for node in objects:
        assert node.get("additionalProperties") is False, node.get("description")
    for name, definition in SCHEMA["$defs"].items():
        assert len(definition.get("description", "")) > 20, name
    for definition in [SCHEMA, *SCHEMA["$defs"].values()]:
        for name, prop in definition.get("properties", {}).items():
            described = prop.get("description") or SCHEMA["$defs"].get(
                prop.get("$ref", "").rpartition("/")[2], {}
            ).get("description")
            assert described, name


def _enum(*path: str) -> list[Any]:
    node: Any = SCHEMA
    for step in path:
        node = node[step]
    return node["enum"]


def test_the_schema_vocabulary_is_the_products_vocabulary():
    defs = SCHEMA["$defs"]
    assert _enum("$defs", "state", "properties", "role") == list(StateRole.ALL)
    assert _enum("$defs", "transition", "properties", "gate") == list(Gate.ALL)
    assert _enum("$defs", "transition", "properties", "comment") == list(CommentPolicy.ALL)
    assert _enum("$defs", "grantee", "properties", "kind") == list(GranteeKind.ALL)
    assert _enum("$defs", "grantee", "properties", "role") == list(Role.ALL)
    assert _enum("$defs", "grant", "properties", "on_vacancy") == list(OnVacancy.ALL)
    assert _enum("properties", "posting_order") == list(PostingOrder.ALL)
    assert _enum("$defs", "field", "properties", "type") == list(FieldType.ALL)
    assert _enum("$defs", "deadline", "properties", "on_breach") == list(BreachAction.ALL)
    assert _enum("$defs", "state", "properties", "approval") == list(Approval.ALL)
    assert defs["labels"]["propertyNames"]["enum"] == list(SUPPORTED_LOCALES)
    assert list(defs["labels"]["properties"]) == list(SUPPORTED_LOCALES)
    assert {p["maxLength"] for p in defs["labels"]["properties"].values()} == {MAX_LABEL_LENGTH}


def test_the_schema_patterns_and_limits_are_the_products():
    defs, top = SCHEMA["$defs"], SCHEMA["properties"]
    # JSON Schema searches a pattern; the product matches it whole (fullmatch).
    assert defs["key"]["pattern"] == f"^{graphs.KEY_PATTERN.pattern}$"
    assert defs["amount"]["pattern"] == f"^{loader._AMOUNT.pattern}$"
    duration = durations._DURATION.pattern.replace("(", "").replace(")", "")
    assert defs["duration"]["pattern"] == f"^{duration}$"
    assert top["states"]["maxItems"] == MAX_STATES
    assert top["transitions"]["maxItems"] == MAX_TRANSITIONS
    assert top["grants"]["maxItems"] == MAX_GRANTS
    assert top["fields"]["maxItems"] == MAX_FIELDS
    assert defs["field"]["properties"]["choices"]["maxItems"] == graphs.MAX_CHOICES
    assert defs["guard"]["properties"]["expression"]["maxLength"] == guards.MAX_LENGTH
    levels = defs["grantee"]["properties"]["levels"]
    assert range(levels["minimum"], levels["maximum"] + 1) == LEVELS_UP_RANGE
    bound = defs["grant"]["properties"]["max_escalation_levels"]
    assert range(bound["minimum"], bound["maximum"] + 1) == ESCALATION_BOUND_RANGE
    assert defs["transition"]["properties"]["vertices"]["maxItems"] == loader.MAX_LIST


# --- what the product writes passes ------------------------------------------------------


@pytest.mark.parametrize("currency", ["MYR", "USD"])
def test_every_seeded_graph_as_published_passes_the_schema(currency):
    for graph in seeded.seeded_graphs(currency):
        assert schema_errors(to_json(graph.normalised())) == [], graph.kind
        # What the exporter writes, through real JSON text.
        assert schema_errors(json.loads(graph_json.dumps(graph.normalised()))) == [], graph.kind


def test_the_validator_fixture_passes_written_with_or_without_its_defaults():
    assert schema_errors(to_json(valid())) == []
    assert schema_errors(to_json(valid().normalised())) == []


def _keys(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        found |= set(node)
        for value in node.values():
            found |= _keys(value)
    elif isinstance(node, list):
        for value in node:
            found |= _keys(value)
    return found


def _declared(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        found |= set(node.get("properties", {}))
        for value in node.values():
            found |= _declared(value)
    elif isinstance(node, list):
        for value in node:
            found |= _declared(value)
    return found


def test_a_document_using_every_optional_key_passes_the_schema_loads_and_validates():
    document = maximal()
    assert _declared(SCHEMA) <= _keys(document), "the maximal document misses a key"
    assert schema_errors(document) == []
    graph = from_json(document)
    assert validate(graph, base_currency=BASE) == []
    assert graph.states[1].deadline is not None
    assert graph.states[1].deadline.transition == "reject"
    assert graph.transitions[0].vertices == ((100, 150), (180, 150))
    assert graph.grants[1].min_amount == Decimal("5000.00")
    assert graph.grants[1].grantee.walk_up is True
    assert schema_errors(to_json(graph)) == []
    assert from_json(to_json(graph)) == graph


# --- what the schema refuses, the product refuses ----------------------------------------


def _edit(path: tuple[Any, ...], value: Any = ..., *, delete: bool = False):
    def apply(document: dict[str, Any]) -> dict[str, Any]:
        document = copy.deepcopy(document)
        target: Any = document
        for step in path[:-1]:
            target = target[step]
        if delete:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return document

    return apply


MUTATIONS = {
    "format 2": _edit(("format",), 2),
    "format true": _edit(("format",), True),
    "an unknown top-level key": _edit(("edges",), []),
    "no kind": _edit(("kind",), delete=True),
    "a kind with capitals": _edit(("kind",), "Expense Claim"),
    "no flow labels": _edit(("labels",), delete=True),
    "no English label": _edit(("labels", "en"), delete=True),
    "a blank English label": _edit(("states", 0, "labels", "en"), "   "),
    "a French label": _edit(("labels", "fr"), "Note de frais"),
    "a label of 201 characters": _edit(("states", 1, "labels", "zh"), "长" * 201),
    "a label that is a number": _edit(("labels", "en"), 5),
    "an unknown posting order": _edit(("posting_order",), "sideways"),
    "an empty posting order": _edit(("posting_order",), ""),
    "exclusive approval as text": _edit(("exclusive_approval",), "yes"),
    "exclusive approval as a number": _edit(("exclusive_approval",), 1),
    "no states": _edit(("states",), []),
    "65 states": _edit(
        ("states",),
        [{"key": f"s{i}", "labels": {"en": "S"}, "role": "custom"} for i in range(65)],
    ),
    "a state without a role": _edit(("states", 1, "role"), delete=True),
    "an unknown role": _edit(("states", 1, "role"), "boss"),
    "a state key with capitals": _edit(("states", 0, "key"), "Draft"),
    "terminal as text": _edit(("states", 4, "terminal"), "yes"),
    "a state without labels": _edit(("states", 2, "labels"), delete=True),
    "an unknown state key": _edit(("states", 2, "colour"), "red"),
    "a position out of range": _edit(("states", 0, "x"), 10**6 + 1),
    "approval by all": _edit(("states", 1, "approval"), "all"),
    "an empty approval": _edit(("states", 1, "approval"), ""),
    "a two-week escalation": _edit(("states", 1, "escalate_after"), "2w"),
    "a zero-hour deadline": _edit(("states", 1, "deadline", "after"), "0h"),
    "an unknown breach action": _edit(("states", 2, "deadline", "on_breach"), "panic"),
    "an automatic deadline without a transition": _edit(
        ("states", 1, "deadline", "transition"), delete=True
    ),
    "a reminder naming a transition": _edit(
        ("states", 2, "deadline"), {"after": "30m", "on_breach": "remind", "transition": "pay"}
    ),
    "a transition without a gate": _edit(("transitions", 1, "gate"), delete=True),
    "a gate given as a number": _edit(("transitions", 3, "gate"), 3),
    "an unknown gate": _edit(("transitions", 1, "gate"), "anyone"),
    "an action key with capitals": _edit(("transitions", 1, "key"), "Approve"),
    "a transition from a key with capitals": _edit(("transitions", 1, "from"), "Pending"),
    "a transition without labels": _edit(("transitions", 1, "labels"), delete=True),
    "an unknown comment policy": _edit(("transitions", 4, "comment"), "maybe"),
    "an empty comment policy": _edit(("transitions", 1, "comment"), ""),
    "reverses as text": _edit(("transitions", 5, "reverses"), "true"),
    "an order as text": _edit(("transitions", 0, "order"), "1"),
    "an order beyond JavaScript's range": _edit(("transitions", 0, "order"), 2**53 + 1),
    "a vertex of three numbers": _edit(("transitions", 0, "vertices", 0), [1, 2, 3]),
    "a guard as text": _edit(("transitions", 0, "guard"), "document.amount > 0"),
    "a guard without an expression": _edit(
        ("transitions", 0, "guard", "expression"), delete=True
    ),
    "an empty guard": _edit(("transitions", 0, "guard", "expression"), "  "),
    "a guard of 501 characters": _edit(
        ("transitions", 0, "guard", "expression"), "document.amount > 0" + " " * 482
    ),
    "a guard without a message": _edit(("transitions", 0, "guard", "message"), delete=True),
    "257 transitions": _edit(
        ("transitions",),
        [
            {"key": f"t{i}", "from": "pending", "to": "done", "gate": "requester", "labels": L("T")}
            for i in range(257)
        ],
    ),
    "a grant without a grantee": _edit(("grants", 0, "grantee"), delete=True),
    "a grant on one state and all states": _edit(("grants", 0, "all_states"), True),
    "a grant on no state": _edit(("grants", 3, "state"), delete=True),
    "a grant on all states, false": _edit(("grants", 6, "all_states"), False),
    "an unknown grantee kind": _edit(("grants", 0, "grantee", "kind"), "boss"),
    "a superior with a member": _edit(("grants", 0, "grantee", "member"), 7),
    "a member grantee without a member": _edit(("grants", 4, "grantee", "member"), delete=True),
    "a member given as text": _edit(("grants", 4, "grantee", "member"), "7"),
    "a member given as true": _edit(("grants", 4, "grantee", "member"), True),
    "a member id beyond JavaScript's range": _edit(("grants", 4, "grantee", "member"), 2**53 + 1),
    "a position grantee naming a level": _edit(("grants", 5, "grantee", "levels"), 1),
    "zero levels up": _edit(("grants", 2, "grantee", "levels"), 0),
    "ten levels up": _edit(("grants", 2, "grantee", "levels"), 10),
    "an unknown role grantee": _edit(("grants", 3, "grantee", "role"), "janitor"),
    "walk_up on a superior": _edit(("grants", 0, "grantee", "walk_up"), True),
    "an amount as a number": _edit(("grants", 1, "min_amount"), 5000),
    "an amount with an exponent": _edit(("grants", 1, "min_amount"), "5e3"),
    "an amount with five decimals": _edit(("grants", 1, "min_amount"), "5000.00001"),
    "an amount without a currency": _edit(("grants", 1, "currency"), delete=True),
    "a currency without an amount": _edit(("grants", 2, "currency"), "MYR"),
    "an unknown vacancy policy": _edit(("grants", 0, "on_vacancy"), "wait"),
    "an empty vacancy policy": _edit(("grants", 3, "on_vacancy"), ""),
    "no escalation at all": _edit(("grants", 0, "max_escalation_levels"), 0),
    "eleven escalation levels": _edit(("grants", 0, "max_escalation_levels"), 11),
    "a field without a type": _edit(("fields", 1, "type"), delete=True),
    "an unknown field type": _edit(("fields", 1, "type"), "colour"),
    "a field key with capitals": _edit(("fields", 1, "key"), "Nights"),
    "a choice field without choices": _edit(("fields", 0, "choices"), delete=True),
    "a choice field with no choices": _edit(("fields", 0, "choices"), []),
    "choices on a number field": _edit(("fields", 1, "choices"), [{"key": "one", "labels": L("One")}]),
    "a choice key with capitals": _edit(("fields", 0, "choices", 1, "key"), "Meals"),
    "a choice without labels": _edit(("fields", 0, "choices", 1, "labels"), delete=True),
    "required as text": _edit(("fields", 1, "required"), "no"),
    "33 fields": _edit(
        ("fields",),
        [{"key": f"f{i}", "type": "text", "labels": L("F")} for i in range(33)],
    ),
}  # fmt: skip


def test_the_maximal_document_is_accepted_by_both_before_any_mutation():
    assert schema_errors(maximal()) == []
    assert product_refusal(maximal()) is None


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_document_the_schema_refuses_is_refused_by_the_product_too(name):
    document = MUTATIONS[name](maximal())
    assert schema_errors(document), f"the schema accepts {name}"
    assert product_refusal(document) is not None, f"the product accepts {name}"


def _beyond_json_schema(node: Any) -> bool:
    """Whether the data holds a value JSON Schema cannot tell from a good one: a float
    such as 1.0 (an integer to JSON Schema, not to the loader) or a lone surrogate (a
    string to JSON Schema; no portable pattern refuses it)."""
    if isinstance(node, float):
        return node.is_integer()
    if isinstance(node, str):
        return not node.isascii() and any(0xD800 <= ord(c) <= 0xDFFF for c in node)
    if isinstance(node, dict):
        return any(_beyond_json_schema(k) or _beyond_json_schema(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_beyond_json_schema(v) for v in node)
    return False


@PROPERTY
@given(mutated_documents())
def test_whatever_the_loader_refuses_the_schema_refuses(document):
    # The product never writes either corner, so they are left out here.
    assume(not _beyond_json_schema(document))
    try:
        from_json(document)
    except GraphFormatError as exc:
        assert schema_errors(document), f"the loader refuses ({exc.code}) but the schema accepts"
