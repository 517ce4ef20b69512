"""Transition guards: a tiny boolean language that is parsed, checked and evaluated, never run.

The story: a flow designer writes a guard, the parser either builds a tree or names the column
of the first mistake, the checker compares the tree with the flow's declared fields, and at run
time the guard is evaluated against flat facts and fails closed on anything unexpected.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from portal.domain import guards
from portal.domain.errors import DomainError
from portal.domain.guards import (
    DOCUMENT_PATHS,
    FIELD_TYPES,
    MAX_DEPTH,
    MAX_LENGTH,
    PRINCIPAL_PATHS,
    Guard,
    GuardEvalError,
    GuardProblem,
    GuardSyntaxError,
    check,
    evaluate,
    is_satisfied,
    known_paths,
    parse,
)
from portal.domain.messages import MESSAGES

# The language's source, every module of the package.
PACKAGE = guards.__name__
SOURCES = [p.read_text(encoding="utf-8") for p in sorted(Path(guards.__file__).parent.glob("*.py"))]

FIELDS = [("category", "choice"), ("nights", "number"), ("due", "date"), ("urgent", "bool")]
PATHS = known_paths(FIELDS)
FACTS = {
    "document.amount": Decimal("120.50"),
    "document.currency": "EUR",
    "document.kind": "expense",
    "document.title": "Conference trip",
    "document.requester": 7,
    "document.fields.category": "travel",
    "document.fields.nights": 2,
    "document.fields.due": "2024-06-30",
    "document.fields.urgent": False,
    "principal.member": 9,
    "principal.roles": ("approver", "admin"),
    "principal.unit": "FIN",
}


def run(source: str, facts: Mapping[str, object] | None = None) -> object:
    return evaluate(parse(source), FACTS if facts is None else facts)


def syntax_error(source: str) -> GuardSyntaxError:
    with pytest.raises(GuardSyntaxError) as caught:
        parse(source)
    return caught.value


def eval_error(source: str, facts: Mapping[str, object] | None = None) -> GuardEvalError:
    guard = parse(source)
    with pytest.raises(GuardEvalError) as caught:
        evaluate(guard, FACTS if facts is None else facts)
    return caught.value


# --- the language by example -----------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "document.amount > 0",
        'document.fields.category in ["travel", "meals"] and document.amount <= 500',
        '"admin" in principal.roles',
        "document.requester != principal.member",
        "document.fields.due < '2024-07-01' or document.fields.urgent",
        "not document.fields.urgent and document.fields.nights * 50 < document.amount",
    ],
)
def test_the_guards_a_flow_designer_writes_hold_for_a_matching_document(source):
    guard = parse(source)
    assert check(guard, PATHS) == []
    assert is_satisfied(guard, FACTS) is True


def test_a_guard_keeps_its_source_exactly_and_lists_the_paths_it_reads():
    source = '  document.amount > 0\n\tand "admin" in principal.roles  '
    guard = parse(source)
    assert guard.source == source
    assert guard.paths() == {"document.amount", "principal.roles"}
    assert parse("1 == 1").paths() == frozenset()


def test_two_guards_with_the_same_source_are_equal_and_hashable():
    assert parse("document.amount > 0") == parse("document.amount > 0")
    assert parse("document.amount > 0") != parse("document.amount >= 0")
    assert len({parse("true"), parse("true")}) == 1
    assert "tree" not in repr(parse("true"))


def test_guard_errors_are_domain_errors_with_a_column():
    error = syntax_error("document.amount >")
    assert isinstance(error, DomainError)
    assert error.column == error.params["column"] == 18
    assert isinstance(eval_error("1 / 0"), DomainError)


# --- syntax errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "code", "column", "params"),
    [
        ("", "guard_empty", 1, {}),
        (" \t\n ", "guard_empty", 1, {}),
        ("1" * (MAX_LENGTH + 1), "guard_too_long", 501, {"limit": 500}),
        ("(" * 33 + "true" + ")" * 33, "guard_too_deep", 33, {"limit": 32}),
        ("document.amount # 1", "guard_unexpected_character", 17, {"char": "#"}),
        ("document.amount = 1", "guard_unexpected_character", 17, {"char": "="}),
        ("document.amount > 0 && true", "guard_unexpected_character", 21, {"char": "&"}),
        ("'travel\\n'", "guard_unexpected_character", 8, {"char": "\\"}),
        ("1 ==\u00a01", "guard_unexpected_character", 5, {"char": "U+00A0"}),
        ("'travel", "guard_unterminated_string", 1, {}),
        ('document.kind == "travel', "guard_unterminated_string", 18, {}),
        ("'a" + "\\", "guard_unterminated_string", 1, {}),
        ("document.amount > 12.", "guard_bad_number", 19, {"text": "12."}),
        ("1.2.3 > 0", "guard_bad_number", 1, {"text": "1.2.3"}),
        ("12abc > 0", "guard_bad_number", 1, {"text": "12abc"}),
        ("1e5 > 0", "guard_bad_number", 1, {"text": "1e5"}),
        ("0x10 > 0", "guard_bad_number", 1, {"text": "0x10"}),
        ("document.amount > > 1", "guard_unexpected_token", 19, {"token": ">"}),
        ("document.amount 1", "guard_unexpected_token", 17, {"token": "1"}),
        ("+1 > 0", "guard_unexpected_token", 1, {"token": "+"}),
        ("[1, 2,] == []", "guard_unexpected_token", 7, {"token": "]"}),
        ("(true))", "guard_unexpected_token", 7, {"token": ")"}),
        ("true not false", "guard_unexpected_token", 6, {"token": "not"}),
        ("1 == not true", "guard_unexpected_token", 6, {"token": "not"}),
        ("document.amount >", "guard_unexpected_end", 18, {}),
        ("(document.amount > 1", "guard_unexpected_end", 21, {}),
        ("[1, 2", "guard_unexpected_end", 6, {}),
        ("amount > 1", "guard_unknown_name", 1, {"name": "amount"}),
        ("1 < True", "guard_unknown_name", 5, {"name": "True"}),
        ("Document.amount > 1", "guard_unknown_name", 1, {"name": "Document.amount"}),
        ("request.amount > 1", "guard_unknown_name", 1, {"name": "request.amount"}),
        ("document > 1", "guard_unknown_name", 1, {"name": "document"}),
        ("document.Amount > 1", "guard_unknown_name", 10, {"name": "document.Amount"}),
        ("document.amount. > 1", "guard_unknown_name", 17, {"name": "document.amount."}),
        ("1 < document.amount < 10", "guard_chained_comparison", 21, {}),
        ("document.kind == 'a' != true", "guard_chained_comparison", 22, {}),
        ("1 in [1] not in [true]", "guard_chained_comparison", 10, {}),
        ("'" + "x" * 201 + "' == ''", "guard_string_too_long", 1, {"limit": 200}),
        ("[" + ", ".join(["1"] * 65) + "] == []", "guard_list_too_long", 194, {"limit": 64}),
    ],
)
def test_a_syntax_error_names_the_column_of_the_offending_token(source, code, column, params):
    assert parse("document.amount > 1").source  # the well-formed neighbour parses
    error = syntax_error(source)
    assert error.code == code
    assert error.params == {"column": column, **params}


def test_columns_count_characters_from_the_start_even_across_lines():
    source = "document.amount > 0\nand @"
    assert syntax_error(source).column == source.index("@") + 1


def test_the_first_mistake_from_the_left_is_the_one_reported():
    # The tokenizer runs on demand, so a later lexical error cannot hide an earlier one.
    assert syntax_error(") 'unterminated").code == "guard_unexpected_token"
    assert syntax_error("1 + 'unterminated )").code == "guard_unterminated_string"


@pytest.mark.parametrize(
    ("allowed", "refused", "code"),
    [
        ("1 == 1" + " " * 494, "1 == 1" + " " * 495, "guard_too_long"),
        ("(" * 32 + "1" + ")" * 32 + " > 0", "(" * 33 + "1" + ")" * 33 + " > 0", "guard_too_deep"),
        ("[" * 32 + "]" * 32 + " == []", "[" * 33 + "]" * 33 + " == []", "guard_too_deep"),
        ("-" * 32 + "1 > 0", "-" * 33 + "1 > 0", "guard_too_deep"),
        ("not " * 32 + "true", "not " * 33 + "true", "guard_too_deep"),
        ("'" + "x" * 200 + "' == ''", "'" + "x" * 201 + "' == ''", "guard_string_too_long"),
        (
            "[" + ",".join("1" * 64) + "] == []",
            "[" + ",".join("1" * 65) + "] == []",
            "guard_list_too_long",
        ),
        ("9" * 20 + " > 0", "9" * 21 + " > 0", "guard_bad_number"),
        ("0." + "9" * 10 + " > 0", "0." + "9" * 11 + " > 0", "guard_bad_number"),
    ],
)
def test_each_limit_allows_its_maximum_and_refuses_one_more(allowed, refused, code):
    assert parse(allowed).source == allowed
    assert syntax_error(refused).code == code


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 200, 499, 3000])
def test_deep_nesting_is_a_syntax_error_never_a_recursion_error(depth):
    for opener in ("(", "[", "-", "not "):
        source = opener * depth + "1"
        error = syntax_error(source)
        assert error.code == ("guard_too_long" if len(source) > MAX_LENGTH else "guard_too_deep")


# --- nothing is ever run ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "__import__('os').system('true')",
        "document.__class__",
        "document.amount.__class__ == 1",
        "().__class__",
        "open('/etc/passwd')",
        "document.amount()",
        "principal.roles[0] == 'admin'",
        "lambda: 1",
        "document.amount if true else 0",
        "`id`",
        "${document.amount}",
    ],
)
def test_python_code_is_a_syntax_error_not_something_that_runs(source):
    assert parse("document.amount > 0").paths() == {"document.amount"}
    assert syntax_error(source).code.startswith("guard_")


def test_the_module_calls_no_eval_exec_or_compile_and_imports_only_the_standard_library():
    tree = ast.Module([node for text in SOURCES for node in ast.parse(text).body], [])
    forbidden = {"eval", "exec", "compile", "__import__", "getattr", "setattr", "globals", "vars"}
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert called & forbidden == set()
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        # The package's modules importing one another.
        if not (isinstance(node, ast.ImportFrom) and str(node.module).startswith(PACKAGE))
    }
    allowed = {"__future__", "collections.abc", "dataclasses", "datetime", "decimal", "operator"}
    assert imported <= allowed | {"string", "typing", "portal.domain.errors"}


# --- precedence and associativity ------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("1 - 2 - 3 == -4", True),  # left-associative, not 1 - (2 - 3)
        ("8 / 4 / 2 == 1", True),
        ("2 + 3 * 4 == 14", True),
        ("(2 + 3) * 4 == 20", True),
        ("-2 * 3 == -6", True),
        ("- 2 - 3 == -5", True),
        ("--2 == 2", True),
        ("not false and false", False),  # (not false) and false
        ("not (false and false)", True),
        ("true or true and false", True),  # true or (true and false)
        ("(true or true) and false", False),
        ("not 1 == 2", True),  # comparison binds tighter than not
        ("1 + 1 in [2]", True),  # arithmetic binds tighter than in
        ("not 1 in [2]", True),
        ("1 not in [2] and 2 in [2]", True),
    ],
)
def test_operators_bind_by_precedence_and_associate_to_the_left(source, value):
    assert run(source) is value


# --- values ----------------------------------------------------------------------------------


def test_numbers_are_exact_decimals_never_floats():
    assert run("0.1 + 0.2 == 0.3") is True
    assert run("12.50 == 12.5") is True
    assert run("1 == 1.0") is True
    assert run("1 / 4") == Decimal("0.25")
    assert isinstance(run("document.amount * 2"), Decimal)
    assert run("document.amount * 2") == Decimal("241.00")
    # Division rounds to 34 significant digits, so a third times three is not quite one.
    assert run("1 / 3 * 3 == 1") is False


def test_integer_facts_are_numbers_but_booleans_are_not():
    assert run("document.amount == 12", {"document.amount": 12}) is True
    assert run("document.amount == 1", {"document.amount": True}) is False
    assert eval_error("document.amount > 0", {"document.amount": True}).code == "guard_type_error"


def test_equality_works_across_types_and_different_types_are_unequal():
    assert run("'1' == '1'") is True
    assert run("1 == '1'") is False
    assert run("true == 1") is False
    assert run("null == false") is False
    assert run("null == null") is True
    assert run("[1, 'a'] == [1.0, 'a']") is True
    assert run("[1] == [true]") is False
    assert run("principal.roles == ['approver', 'admin']") is True
    assert run("principal.member != document.requester") is True


def test_membership_reads_a_list_and_compares_like_equality():
    assert run("'admin' in principal.roles") is True
    assert run("'auditor' not in principal.roles") is True
    assert run("1 in [1.00, 2]") is True
    assert run("1 in [true]") is False
    assert run("[] == []") is True


def test_strings_and_iso_dates_order_lexicographically():
    assert run("document.fields.due < '2024-07-01'") is True
    assert run("document.fields.due >= '2024-07-01'") is False
    assert run("'b' > 'a' and 'B' < 'a'") is True
    assert run("document.fields.due == '2024-06-30'", {"document.fields.due": date(2024, 6, 30)})


def test_string_escapes_cover_backslash_and_both_quotes():
    assert run(r"'it\'s' == " + '"it\'s"') is True
    assert run(r'"say \"hi\"" == ' + "'say \"hi\"'") is True
    assert run(r"'a\\b'") == "a\\b"


def test_a_present_fact_holding_none_reads_as_null():
    assert run("document.fields.nights == null", {"document.fields.nights": None}) is True
    error = eval_error("document.fields.nights > 1", {"document.fields.nights": None})
    assert error.code == "guard_type_error"
    assert error.params["left"] == "null"


def test_a_set_of_roles_is_read_as_a_list():
    facts = {"principal.roles": frozenset({"b", "a"})}
    assert run("'a' in principal.roles", facts) is True
    assert run("principal.roles == ['a', 'b']", facts) is True


# --- logic is strictly boolean and short-circuits --------------------------------------------


def test_and_or_short_circuit_before_reading_a_missing_value():
    assert run("false and document.fields.missing == 1") is False
    assert run("true or document.fields.missing == 1") is True
    assert eval_error("true and document.fields.missing == 1").code == "guard_missing_value"


def test_and_or_not_refuse_anything_but_booleans():
    assert run("true and true") is True
    error = eval_error("document.amount and true")
    assert (error.code, error.params) == (
        "guard_type_error",
        {"operator": "and", "left": "number", "right": "bool", "column": 17},
    )
    error = eval_error("false or 'yes'")
    assert error.params == {"operator": "or", "left": "bool", "right": "string", "column": 7}
    error = eval_error("not document.title")
    assert (error.code, error.params) == (
        "guard_operand_type",
        {"operator": "not", "type": "string", "column": 1},
    )


# --- evaluation errors -----------------------------------------------------------------------


def test_ordering_needs_two_numbers_or_two_strings():
    assert run("document.amount > 100") is True
    error = eval_error("document.amount > '100'")
    assert (error.code, error.params) == (
        "guard_type_error",
        {"operator": ">", "left": "number", "right": "string", "column": 17},
    )
    assert eval_error("null < 1").params["left"] == "null"
    assert eval_error("[1] < [2]").params["left"] == "list"


def test_arithmetic_is_for_numbers_only():
    assert run("document.amount + 1 > 0") is True
    error = eval_error("document.title + 'x' == ''")
    assert error.params == {"operator": "+", "left": "string", "right": "string", "column": 16}
    assert eval_error("-'x' == 1").code == "guard_operand_type"


def test_membership_needs_a_list_on_the_right():
    assert run("'a' in ['abc']") is False
    error = eval_error("'a' in 'abc'")
    assert error.params == {"operator": "in", "left": "string", "right": "string", "column": 5}


def test_dividing_by_zero_is_refused_at_the_operator():
    assert run("document.amount / 2 > 0") is True
    error = eval_error("document.amount / 0 > 0")
    assert error.params == {"column": 17}
    assert error.code == "guard_division_by_zero"
    assert eval_error("0 / 0 == 0").code == "guard_division_by_zero"
    assert eval_error("1 / (2 - 2) == 0").code == "guard_division_by_zero"


def test_a_result_out_of_range_is_an_overflow():
    assert run("document.amount * document.amount > 0", {"document.amount": Decimal("1E+3000")})
    error = eval_error(
        "document.amount * document.amount > 0", {"document.amount": Decimal("1E+6000")}
    )
    assert (error.code, error.params) == ("guard_overflow", {"column": 17})


def test_a_path_missing_from_the_facts_is_named():
    assert run("document.fields.nights == 2") is True
    error = eval_error("1 == 1 and document.fields.rooms == 2")
    assert (error.code, error.params) == (
        "guard_missing_value",
        {"path": "document.fields.rooms", "column": 12},
    )


@pytest.mark.parametrize(
    "value", [1.5, Decimal("NaN"), Decimal("Infinity"), object(), {"a": 1}, [["nested"]]]
)
def test_a_fact_of_a_type_the_language_does_not_have_is_refused(value):
    assert run("document.amount > 0", {"document.amount": Decimal("1.5")}) is True
    error = eval_error("document.amount > 0", {"document.amount": value})
    assert error.code == "guard_unsupported_value"
    assert error.params["path"] == "document.amount"


def test_is_satisfied_needs_exactly_true_and_fails_closed():
    assert is_satisfied(parse("document.amount > 100"), FACTS) is True
    assert is_satisfied(parse("document.amount > 1000"), FACTS) is False
    assert is_satisfied(parse("document.amount"), FACTS) is False  # a number is not true
    assert is_satisfied(parse("'yes'"), FACTS) is False
    with pytest.raises(GuardEvalError):
        is_satisfied(parse("document.amount > 0"), {})


# --- static check ----------------------------------------------------------------------------


def test_known_paths_are_the_fixed_paths_plus_the_flows_fields():
    paths = known_paths(FIELDS)
    assert paths == {
        **DOCUMENT_PATHS,
        **PRINCIPAL_PATHS,
        "document.fields.category": "string",
        "document.fields.nights": "number",
        "document.fields.due": "date",
        "document.fields.urgent": "bool",
    }
    assert set(FIELD_TYPES) == {"text", "number", "money", "date", "choice", "bool"}
    assert known_paths([("x", "signature")])["document.fields.x"] == "unknown"


def test_the_checker_accepts_a_declared_field_and_names_an_undeclared_one():
    assert check(parse("document.fields.category == 'travel'"), PATHS) == []
    assert check(parse("document.fields.colour == 'red'"), PATHS) == [
        GuardProblem("guard_unknown_path", {"path": "document.fields.colour"}, 1)
    ]
    assert check(parse("document.owner > 1"), PATHS)[0].params == {"path": "document.owner"}


def test_an_unknown_path_does_not_cascade_into_more_problems():
    problems = check(parse("document.fields.colour * 2 > 1 and document.fields.colour"), PATHS)
    assert [p.code for p in problems] == ["guard_unknown_path", "guard_unknown_path"]


@pytest.mark.parametrize(
    ("allowed", "refused", "column", "params"),
    [
        (
            "document.amount == 12",
            "document.amount == '12'",
            17,
            {"operator": "==", "left": "number", "right": "string"},
        ),
        (
            "document.fields.nights * 2 > 1",
            "document.title * 2 > 1",
            16,
            {"operator": "*", "left": "string", "right": "number"},
        ),
        (
            "document.fields.urgent and true",
            "document.amount and true",
            17,
            {"operator": "and", "left": "number", "right": "bool"},
        ),
        (
            "document.fields.due < '2024-07-01'",
            "document.fields.due < 20240701",
            21,
            {"operator": "<", "left": "date", "right": "number"},
        ),
        (
            "document.fields.nights == null",
            "document.fields.nights < null",
            24,
            {"operator": "<", "left": "number", "right": "null"},
        ),
        (
            "'admin' in principal.roles",
            "'admin' in principal.unit",
            9,
            {"operator": "in", "left": "string", "right": "string"},
        ),
        (
            "document.amount in [10, 20]",
            "document.amount in [10, '20']",
            25,
            {"operator": "in", "left": "number", "right": "string"},
        ),
        (
            "principal.roles == ['admin']",
            "principal.roles == 'admin'",
            17,
            {"operator": "==", "left": "list", "right": "string"},
        ),
    ],
)
def test_the_checker_names_an_obvious_type_mismatch(allowed, refused, column, params):
    assert check(parse(allowed), PATHS) == []
    assert check(parse(refused), PATHS) == [GuardProblem("guard_type_mismatch", params, column)]


def test_the_checker_names_an_operand_of_the_wrong_type():
    assert check(parse("not document.fields.urgent"), PATHS) == []
    assert check(parse("not document.title"), PATHS) == [
        GuardProblem("guard_operand_type", {"operator": "not", "type": "string"}, 1)
    ]
    assert check(parse("-document.title == 1"), PATHS)[0].params == {
        "operator": "-",
        "type": "string",
    }


def test_the_whole_guard_must_be_boolean():
    assert check(parse("document.amount + 1 > 0"), PATHS) == []
    assert check(parse("document.amount + 1"), PATHS) == [
        GuardProblem("guard_not_boolean", {"type": "number"}, 1)
    ]
    assert check(parse("  (document.title)"), PATHS) == [
        GuardProblem("guard_not_boolean", {"type": "string"}, 4)
    ]


def test_members_are_numbers_to_the_checker():
    assert check(parse("document.requester != principal.member"), PATHS) == []
    assert check(parse("principal.member == 3"), {"principal.member": "member"}) == []


# --- messages --------------------------------------------------------------------------------

# One source for each syntax error code.
SYNTAX_ERRORS = (
    "",
    "1" * 501,
    "(" * 40,
    "@",
    "'a",
    "1x",
    ")",
    "(",
    "foo",
    "1 < 2 < 3",
    "'" + "a" * 201 + "'",
    "[" + ",".join("1" * 65) + "]",
)


def test_every_guard_error_has_a_message_that_names_the_column():
    for source in SYNTAX_ERRORS:
        error = syntax_error(source)
        assert "%(column)s" in _template(error.code)
        assert str(error.column) in _template(error.code) % error.params
    evaluated: list[tuple[str, dict[str, object]]] = [
        ("1 < 'a'", {}),
        ("not 1", {}),
        ("1 / 0", {}),
        ("document.amount * document.amount", {"document.amount": Decimal("1E+6000")}),
        ("document.amount", {}),
        ("document.amount", {"document.amount": 1.5}),
    ]
    for source, facts in evaluated:
        failed = eval_error(source, facts)
        assert "%(column)s" in _template(failed.code)
        assert _template(failed.code) % failed.params
    for source in ["document.fields.x", "document.title * 2", "-'a' > 1", "document.amount"]:
        for problem in check(parse(source), PATHS):
            assert "%(column)s" in _template(problem.code)
            assert _template(problem.code) % problem.message_params


def _template(code: str) -> str:
    """A guard message's one form (guard messages have no plural)."""
    template = MESSAGES[code]
    assert isinstance(template, str), code
    return template


def test_every_code_the_module_can_raise_has_a_message():
    text = "\n".join(SOURCES)
    codes = set(re.findall(r'"(guard_[a-z_]+)"', text))
    assert len(codes) >= 20
    assert codes <= set(MESSAGES)


# --- properties ------------------------------------------------------------------------------

TOKENS = [
    *DOCUMENT_PATHS,
    *PRINCIPAL_PATHS,
    "document.fields.category",
    "document.fields.x",
    "document",
    "x",
    "0",
    "12.50",
    "1.",
    "'a'",
    '"b"',
    "'",
    '"',
    "\\",
    "true",
    "false",
    "null",
    "and",
    "or",
    "not",
    "in",
    *["==", "!=", "<", "<=", ">", ">=", "=", "!", "+", "-", "*", "/", ".", ","],
    *["(", ")", "[", "]", " ", "\n", "\t"],
]
token_soup = st.lists(st.sampled_from(TOKENS), max_size=80).flatmap(
    lambda parts: st.sampled_from([" ".join(parts), "".join(parts)])
)
nesting = st.builds(
    lambda opener, depth, closed: opener * depth + "1" + (")" * depth if closed else ""),
    st.sampled_from(["(", "[", "-", "not ", "(-", "[not ", "(["]),
    st.integers(0, 3000),
    st.booleans(),
)


def _parses_or_refuses(source: str) -> Guard | None:
    try:
        guard = parse(source)
    except GuardSyntaxError as error:
        assert error.code in MESSAGES
        assert 1 <= error.column <= len(source) + 1
        return None
    assert guard.source == source
    return guard


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=600), token_soup, nesting))
def test_any_text_either_parses_or_is_a_syntax_error(source):
    guard = _parses_or_refuses(source)
    if guard is not None:
        problems = check(guard, PATHS)
        assert all(1 <= problem.column <= len(source) for problem in problems)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


EXPRESSION_PATHS = [*PATHS, "document.fields.colour"]
BINARY = ["or", "and", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "+", "-", "*", "/"]
numbers = st.decimals(min_value=-(10**6), max_value=10**6, places=2)
leaves = st.one_of(
    numbers.map(lambda number: format(number, "f")),
    st.text(string.ascii_letters + "\\\"' -", max_size=8).map(_quoted),
    st.sampled_from(["true", "false", "null", "'2024-06-30'"]),
    st.sampled_from(EXPRESSION_PATHS),
)
expressions = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(BINARY), inner),
        inner.map(lambda a: f"(not {a})"),
        inner.map(lambda a: f"(-{a})"),
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    ),
    max_leaves=12,
)
any_value = st.one_of(
    st.none(),
    st.booleans(),
    numbers,
    st.integers(-(10**30), 10**30),
    st.text(max_size=8),
    st.dates().map(date.isoformat),
    st.lists(st.text(max_size=4), max_size=3).map(tuple),
)


def _parsed(source: str) -> Guard:
    try:
        return parse(source)
    except GuardSyntaxError as error:
        # Generated expressions are well-formed; only the size limits may refuse them.
        assert error.code in ("guard_too_long", "guard_too_deep"), (source, error)
        assume(False)
        raise


@settings(max_examples=300, deadline=None)
@given(expressions, st.dictionaries(st.sampled_from(EXPRESSION_PATHS), any_value))
def test_a_well_formed_guard_evaluates_to_a_value_or_a_guard_error(source, facts):
    guard = _parsed(source)
    assert guard.source == source
    try:
        value = evaluate(guard, facts)
    except GuardEvalError as error:
        assert error.code in MESSAGES
        assert 1 <= error.column <= len(source)
        with pytest.raises(GuardEvalError):
            is_satisfied(guard, facts)
        return
    assert value is None or isinstance(value, bool | Decimal | str | tuple)
    assert is_satisfied(guard, facts) is (value is True)


def _typed_value(static_type: str) -> st.SearchStrategy[object]:
    return {
        "number": st.one_of(numbers, st.integers(-1000, 1000)),
        "string": st.text(string.ascii_letters, max_size=6),
        "date": st.dates().map(date.isoformat),
        "bool": st.booleans(),
        "list": st.lists(st.sampled_from(["admin", "approver", "a"]), max_size=3).map(tuple),
    }[static_type]


well_typed_facts = st.fixed_dictionaries({path: _typed_value(kind) for path, kind in PATHS.items()})


def _binary(left: str, operator: str, right: str) -> str:
    return f"({left} {operator} {right})"


def _paths_of(*types: str) -> list[str]:
    return [path for path, kind in PATHS.items() if kind in types]


# Expressions built type by type, so that most of them pass the checker and the property below
# tests something; the untyped ``expressions`` are mixed in to probe the checker's edges.
typed_numbers = st.recursive(
    st.one_of(
        numbers.map(lambda number: format(number, "f")), st.sampled_from(_paths_of("number"))
    ),
    lambda inner: st.one_of(
        st.builds(_binary, inner, st.sampled_from(["+", "-", "*", "/"]), inner),
        inner.map(lambda a: f"(-{a})"),
    ),
    max_leaves=6,
)
typed_strings = st.one_of(
    st.text(string.ascii_letters, max_size=4).map(_quoted),
    st.sampled_from(["'2024-06-30'", *_paths_of("string", "date")]),
)
typed_comparisons = st.one_of(
    st.builds(
        _binary, typed_numbers, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), typed_numbers
    ),
    st.builds(
        _binary, typed_strings, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), typed_strings
    ),
    st.builds(_binary, leaves, st.sampled_from(["==", "!="]), leaves),
    st.builds(
        _binary,
        typed_strings,
        st.sampled_from(["in", "not in"]),
        st.one_of(
            st.just("principal.roles"),
            st.lists(typed_strings, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        ),
    ),
)
typed_booleans = st.recursive(
    st.one_of(st.sampled_from(["true", "false", *_paths_of("bool")]), typed_comparisons),
    lambda inner: st.one_of(
        inner.map(lambda a: f"(not {a})"),
        st.builds(_binary, inner, st.sampled_from(["and", "or"]), inner),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(typed_booleans, typed_booleans, expressions), well_typed_facts)
def test_a_guard_the_checker_accepts_is_boolean_on_well_typed_facts(source, facts):
    guard = _parsed(source)
    assume(check(guard, PATHS) == [])
    try:
        value = evaluate(guard, facts)
    except GuardEvalError as error:
        # Only arithmetic can still go wrong: no type error, no missing value.
        assert error.code in ("guard_division_by_zero", "guard_overflow"), (source, error)
        return
    assert isinstance(value, bool)
