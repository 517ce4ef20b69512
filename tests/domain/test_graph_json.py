"""The flow graph's JSON codec.

The story: a graph written out and read back is the same graph, defaults and all, and a
document that is not a graph is refused with the path of its first problem, never with
a crash, whatever bytes arrive.
"""

from __future__ import annotations

import contextlib
import copy
import json
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from portal.domain.errors import DomainError
from portal.domain.graph import (
    MAX_LABEL_LENGTH,
    Grant,
    Grantee,
    GranteeKind,
    Graph,
)
from portal.domain.graph_json import (
    MAX_DOCUMENT_BYTES,
    GraphFormatError,
    dumps,
    from_json,
    loads,
    to_json,
)
from portal.domain.labels import Labels
from portal.domain.validate import Violation, validate
from portal.flows import seeded
from tests.domain.test_validate import valid

BASE = "MYR"


def graphs() -> list[Graph]:
    return [valid(), *seeded.seeded_graphs("MYR"), *seeded.seeded_graphs("USD")]


def document() -> dict[str, Any]:
    """The fixture as JSON data, fresh for each test to break."""
    return to_json(valid())


def refusal(data: object) -> GraphFormatError:
    with pytest.raises(GraphFormatError) as caught:
        from_json(data)
    return caught.value


def refusal_of_text(text: str | bytes) -> GraphFormatError:
    with pytest.raises(GraphFormatError) as caught:
        loads(text)
    return caught.value


# --- round trips ---------------------------------------------------------------------


@pytest.mark.parametrize("graph", graphs(), ids=lambda g: g.kind)
def test_a_graph_written_and_read_back_is_the_same_graph(graph):
    assert from_json(to_json(graph)) == graph
    assert loads(dumps(graph)) == graph
    assert loads(dumps(graph, indent=None).encode("utf-8")) == graph
    # Plain JSON data: nothing the standard library cannot write.
    assert json.loads(json.dumps(to_json(graph))) == to_json(graph)


def test_attributes_left_out_stay_out_and_defaults_are_not_written():
    data: Any = to_json(valid())  # indexed as the JSON it is
    assert "comment" not in data["transitions"][0]
    assert "approval" not in data["states"][0]
    assert "on_vacancy" not in data["grants"][0]
    assert "all_states" not in data["grants"][0]
    assert "vertices" not in data["transitions"][0]
    assert data["format"] == 1


def test_an_amount_is_written_as_a_decimal_string_and_read_back_exactly():
    floored = replace(
        valid(),
        grants=(
            Grant(
                state="approved",
                grantee=Grantee(GranteeKind.SUPERIOR),
                min_amount=Decimal("2000.50"),
                currency=BASE,
            ),
        ),
    )
    data: Any = to_json(floored)
    assert data["grants"][0]["min_amount"] == "2000.50"
    assert from_json(data).grants[0].min_amount == Decimal("2000.50")
    assert from_json(json.loads(dumps(floored))) == floored


def test_an_amount_built_in_an_exponent_form_is_still_written_in_fixed_point():
    thousand = Grant(
        state="approved",
        grantee=Grantee(GranteeKind.SUPERIOR),
        min_amount=Decimal("1E+3"),
        currency=BASE,
    )
    data: Any = to_json(replace(valid(), grants=(thousand,)))
    assert data["grants"][0]["min_amount"] == "1000"
    assert from_json(data).grants[0].min_amount == Decimal(1000)


def test_a_graph_written_without_defaults_equals_one_written_with_them():
    bare = document()
    bare["grants"].append({"state": "approved", "grantee": {"kind": "unit_head"}})
    full = copy.deepcopy(bare)
    full["posting_order"] = "accrual_first"
    for s in full["states"]:
        s["approval"] = "any"
    for t in full["transitions"]:
        t.setdefault("comment", "optional")
    for g in full["grants"]:
        g["on_vacancy"] = "escalate"
        g["max_escalation_levels"] = 2
    full["grants"][-1]["grantee"]["walk_up"] = False
    del bare["posting_order"]

    assert from_json(bare) != from_json(full)  # as written, they differ
    assert from_json(bare).normalised() == from_json(full)
    assert from_json(full).normalised() == from_json(full)
    assert from_json(bare).normalised().normalised() == from_json(bare).normalised()


# --- refusals name the path -----------------------------------------------------------


def _set(path: tuple[Any, ...], value: Any):
    def edit(doc: dict[str, Any]) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return edit


def _delete(path: tuple[Any, ...]):
    def edit(doc: dict[str, Any]) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return edit


@pytest.mark.parametrize(
    ("edit", "code", "path", "params"),
    [
        (_set(("transitions", 3, "gate"), 3), "graph_wrong_type", "transitions[3].gate", {"expected": "string"}),
        (_set(("states", 1, "colour"), "red"), "graph_unknown_key", "states[1].colour", {}),
        (_set(("edges",), []), "graph_unknown_key", "edges", {}),
        (_delete(("states", 0, "role")), "graph_missing_key", "states[0].role", {}),
        (_delete(("kind",)), "graph_missing_key", "kind", {}),
        (_delete(("grants", 0, "grantee")), "graph_missing_key", "grants[0].grantee", {}),
        (_set(("grants", 0, "min_amount"), 2000), "graph_bad_amount", "grants[0].min_amount", {}),
        (_set(("grants", 0, "min_amount"), 2000.5), "graph_bad_amount", "grants[0].min_amount", {}),
        (_set(("grants", 0, "min_amount"), "2,000.00"), "graph_bad_amount", "grants[0].min_amount", {}),
        (_set(("grants", 0, "min_amount"), "1e3"), "graph_bad_amount", "grants[0].min_amount", {}),
        (_set(("grants", 0, "min_amount"), "0.00001"), "graph_bad_amount", "grants[0].min_amount", {}),
        (_set(("states",), {}), "graph_wrong_type", "states", {"expected": "array"}),
        (_set(("states", 4, "terminal"), "yes"), "graph_wrong_type", "states[4].terminal", {"expected": "boolean"}),
        (_set(("transitions", 5, "reverses"), 1), "graph_wrong_type", "transitions[5].reverses", {"expected": "boolean"}),
        (_set(("transitions", 0, "order"), "1"), "graph_wrong_type", "transitions[0].order", {"expected": "integer"}),
        (_set(("transitions", 0, "guard"), "document.amount > 0"), "graph_wrong_type", "transitions[0].guard", {"expected": "object"}),
        (_delete(("transitions", 0, "guard", "expression")), "graph_missing_key", "transitions[0].guard.expression", {}),
        (_set(("transitions", 0, "vertices"), [[1, 2, 3]]), "graph_wrong_type", "transitions[0].vertices[0]", {"expected": "[x, y]"}),
        (_set(("transitions", 0, "vertices"), [[1, "2"]]), "graph_wrong_type", "transitions[0].vertices[0][1]", {"expected": "integer"}),
        (_set(("grants", 1, "grantee", "member"), True), "graph_wrong_type", "grants[1].grantee.member", {"expected": "integer"}),
        (_set(("grants", 1, "grantee", "member"), 2**53 + 1), "graph_number_out_of_range", "grants[1].grantee.member", {}),
        (_set(("states", 0, "x"), 10**6 + 1), "graph_number_out_of_range", "states[0].x", {}),
        (_set(("states", 1, "deadline"), {"after": "48h"}), "graph_missing_key", "states[1].deadline.on_breach", {}),
        (_delete(("fields", 0, "choices", 1, "key")), "graph_missing_key", "fields[0].choices[1].key", {}),
        (_set(("labels", "en"), 5), "graph_wrong_type", "labels.en", {"expected": "string"}),
        (_set(("labels",), {f"x{i}": "x" for i in range(17)}), "graph_list_too_long", "labels", {"limit": 16}),
        (_set(("kind",), "k" * 2001), "graph_string_too_long", "kind", {"limit": 2000}),
        (_set(("states",), [{"key": "s", "role": "custom"}] * 1025), "graph_list_too_long", "states", {"limit": 1024}),
    ],
)  # fmt: skip
def test_a_document_of_the_wrong_shape_is_refused_at_the_path_of_the_problem(
    edit, code, path, params
):
    assert from_json(document()) == valid()
    broken = document()
    edit(broken)
    error = refusal(broken)
    assert (error.code, error.path) == (code, path)
    assert error.params == {"path": path, **params}
    assert isinstance(error, DomainError)


def test_the_whole_document_has_the_empty_path():
    shapes: list[object] = [[], "graph", None, 1]
    for data in shapes:
        error = refusal(data)
        assert (error.code, error.path, error.params) == (
            "graph_wrong_type",
            "",
            {"path": "$", "expected": "object"},
        )


def test_a_fractional_position_from_a_drag_is_rounded_to_a_whole_pixel():
    data = document()
    data["states"][1]["x"] = 240.6
    assert from_json(data).states[1].x == 241
    text = dumps(valid()).replace('"x": 0', '"x": 12.4', 1)
    assert loads(text).states[0].x == 12


def test_text_that_is_not_json_is_refused_with_its_line_and_column():
    error = refusal_of_text('{\n  "kind": "expense_claim",\n  "states": [,]\n}')
    assert error.code == "graph_not_json"
    assert (error.params["line"], error.params["column"]) == (3, 14)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant):
    assert loads('{"kind": "k", "states": [], "format": 1}').kind == "k"
    error = refusal_of_text('{"kind": "k", "states": [], "format": ' + constant + "}")
    assert error.code == "graph_not_json"


def test_absurd_nesting_is_refused_as_too_deep_not_a_crash():
    assert refusal_of_text("[" * 100_000).code == "graph_too_deep"
    assert refusal_of_text(b"[" * 100_000).code == "graph_too_deep"
    assert refusal_of_text('{"kind": ' + "[" * 100_000).code == "graph_too_deep"


def test_a_document_over_a_megabyte_is_refused_before_it_is_parsed():
    padding = " " * (MAX_DOCUMENT_BYTES - len(dumps(valid())))
    assert loads(dumps(valid()) + padding) == valid()  # exactly at the limit

    over = dumps(valid()) + padding + " "
    for text in (over, over.encode("utf-8")):
        error = refusal_of_text(text)
        assert (error.code, error.params["limit"]) == ("graph_too_large", MAX_DOCUMENT_BYTES)
    # Counted in bytes, not characters: 中 is three bytes in UTF-8.
    wide = dumps(valid()).replace('"Draft"', '"' + "中" * (MAX_DOCUMENT_BYTES // 3) + '"', 1)
    assert len(wide) < MAX_DOCUMENT_BYTES
    assert refusal_of_text(wide).code == "graph_too_large"


def test_bytes_must_be_utf8():
    assert loads(dumps(valid()).encode("utf-8")) == valid()
    assert refusal_of_text(b'{"kind": "\xff\xfe", "states": []}').code == "graph_not_utf8"
    assert refusal_of_text(dumps(valid()).encode("utf-16")).code == "graph_not_utf8"


def test_another_format_number_is_refused_before_its_keys_are_read():
    assert from_json({**document(), "format": 1}) == valid()
    for fmt in (2, 0, "1", True, None, [1]):
        error = refusal({**document(), "format": fmt})
        assert (error.code, error.path) == ("graph_format_unsupported", "format")
    # A format-2 document may have keys format 1 never had: the format is the news.
    error = refusal({**document(), "format": 2, "edges": []})
    assert error.code == "graph_format_unsupported"
    assert error.params["format"] == "2"


def test_a_lone_surrogate_escape_is_refused_because_no_utf8_text_can_hold_it():
    pair = dumps(valid()).replace('"Draft"', '"Draft \\ud83d\\ude00"', 1)
    assert loads(pair).states[0].labels["en"] == "Draft \N{GRINNING FACE}"

    for text, path in [
        (dumps(valid()).replace('"Draft"', '"Draft \\ud800"', 1), "states[0].labels.en"),
        (dumps(valid()).replace('"expense_claim"', '"\\udfff"', 1), "kind"),
        (dumps(valid()).replace('"en": "Draft"', '"\\ud800": "Draft"', 1), "states[0].labels"),
    ]:
        error = refusal_of_text(text)
        assert (error.code, error.path) == ("graph_not_utf8", path)


def test_a_long_label_loads_but_does_not_validate():
    data = document()
    data["states"][1]["labels"]["en"] = "L" * MAX_LABEL_LENGTH
    assert validate(from_json(data), base_currency=BASE) == []

    data["states"][1]["labels"]["en"] = "L" * (MAX_LABEL_LENGTH + 1)
    graph = from_json(data)  # the codec checks shape only
    [v] = validate(graph, base_currency=BASE)
    assert (v.code, v.path) == ("label_too_long", "states[1].labels.en")


def test_a_null_optional_value_reads_as_left_out():
    data = document()
    data["states"][1].update({"deadline": None, "escalate_after": None, "x": None})
    data["transitions"][0].update({"comment": None, "vertices": None, "labels": None})
    g = from_json(data)
    assert g.states[1] == replace(valid().states[1], x=0)
    assert g.transitions[0] == replace(valid().transitions[0], labels=Labels())


# --- whatever arrives: a Graph or a GraphFormatError, never a crash --------------------

# Keys the codec knows, so random dictionaries reach past the first unknown-key check.
KNOWN_KEYS = (
    "format", "kind", "labels", "posting_order", "fields", "states", "transitions", "grants",
    "key", "type", "required", "choices", "role", "terminal", "deadline", "escalate_after",
    "approval", "x", "y", "after", "on_breach", "transition", "from", "to", "gate", "guard",
    "expression", "message", "comment", "reverses", "order", "vertices", "state",
    "all_states", "grantee", "min_amount", "currency", "on_vacancy",
    "max_escalation_levels", "member", "position", "levels", "walk_up", "en", "zh", "ms",
)  # fmt: skip

# Words the product gives meaning to, so a replaced value is often almost right.
VOCABULARY = (
    "draft", "pending", "accrual", "payout", "rejected", "dispute", "target", "advance",
    "source", "superior", "unit_head", "levels_up", "auto", "remind", "48h", "0h", "2000.00",
    "-1", "MYR", "any", "required", "document.amount > 0", "document.fields.x == 1", "", " ",
)  # fmt: skip
strings = (
    st.text(max_size=30)
    # Lone surrogates: what a JSON escape such as "\ud800" decodes to.
    | st.text(
        st.characters(min_codepoint=0xD7F0, max_codepoint=0xDFFF, categories=["Cs", "Lo"]),
        max_size=3,
    )
    | st.sampled_from(VOCABULARY)
)
scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
) | strings
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KNOWN_KEYS) | st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=25,
)


def _paths(data: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*here, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += _paths(value, (*here, i))
    return found


def _replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    data = copy.deepcopy(data)
    _set(path, value)(data)
    return data


BASES = [to_json(valid()), to_json(seeded.expense_claim(BASE))]


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    """A valid document with one value anywhere replaced (by arbitrary JSON, or by another
    value of the same JSON type, which the loader then has to accept), or one key dropped."""
    base = draw(st.sampled_from(BASES))
    path = draw(st.sampled_from(_paths(base)))
    how = draw(st.sampled_from(["anything", "same type", "drop"]))
    if how == "drop" and path and isinstance(path[-1], str):
        data = copy.deepcopy(base)
        _delete(path)(data)
        return data
    current = _get(base, path)
    if how == "same type" and isinstance(current, str):
        return _replaced(base, path, draw(strings))
    if how == "same type" and isinstance(current, int) and not isinstance(current, bool):
        return _replaced(base, path, draw(st.integers()))
    return _replaced(base, path, draw(json_values))


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        data = data[step]
    return data


def _read_and_validate(data: Any) -> None:
    try:
        graph = from_json(data)
    except GraphFormatError:
        return
    assert isinstance(graph, Graph)
    dumps(graph).encode("utf-8")  # whatever loads can be stored and hashed
    found = validate(graph, base_currency=BASE)
    assert isinstance(found, list)
    assert all(isinstance(v, Violation) for v in found)


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(json_values)
def test_arbitrary_json_is_a_graph_or_a_format_error_and_every_graph_validates(data):
    _read_and_validate(data)


@PROPERTY
@given(mutated_documents())
def test_a_valid_document_changed_anywhere_still_reads_or_is_refused_cleanly(data):
    _read_and_validate(data)


@PROPERTY
@given(
    st.text(max_size=200)
    | json_values.map(json.dumps)
    | mutated_documents().map(lambda d: json.dumps(d, ensure_ascii=False))
)
def test_arbitrary_text_loads_or_is_refused_with_a_format_error_only(text):
    try:
        graph = loads(text)
    except GraphFormatError:
        return
    assert isinstance(validate(graph, base_currency=BASE), list)


@PROPERTY
@given(st.binary(max_size=200))
def test_arbitrary_bytes_load_or_are_refused_with_a_format_error_only(raw):
    with contextlib.suppress(GraphFormatError):
        loads(raw)
