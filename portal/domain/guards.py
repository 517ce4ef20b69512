"""Transition guards: a small, safe boolean language that decides whether a transition is open.

A guard reads facts about the document and the acting principal and compares them::

    document.amount > 0
    document.fields.category in ["travel", "meals"] and document.amount <= 500
    "admin" in principal.roles
    document.requester != principal.member

The language has literals (decimal numbers such as ``12.50``, strings in single or double
quotes with only ``\\\\``, ``\\'`` and ``\\"`` as escapes, ``true``, ``false``, ``null`` and
lists ``[a, b]``), dotted paths rooted at ``document`` or ``principal``, and these operators,
loosest first: ``or``; ``and``; prefix ``not``; the comparisons ``== != < <= > >= in not in``
(one per expression, never chained); ``+ -``; ``* /``; prefix ``-``. Parentheses group.
There are no function calls, no attribute access beyond the paths and no truthiness: ``and``,
``or`` and ``not`` take booleans only.

The source is read by a hand-written tokenizer and a recursive-descent parser with a depth
limit; nothing here uses ``eval``, ``exec`` or ``compile``. Numbers are ``Decimal`` in a local
context, never floats. ``parse`` raises only ``GuardSyntaxError``; ``evaluate`` raises only
``GuardEvalError``; ``check`` returns problems instead of raising, so a flow editor can list
them all. Columns are 1-based and count characters from the start of the source, newlines
included, so a multi-line guard still has one column per character.
"""

from __future__ import annotations

import decimal
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from operator import add, ge, gt, le, lt, mul, neg, sub, truediv
from typing import Any, NamedTuple

from portal.domain.errors import DomainError

MAX_LENGTH = 500
MAX_DEPTH = 32
MAX_STRING = 200
MAX_ITEMS = 64
MAX_INTEGER_DIGITS = 20
MAX_FRACTION_DIGITS = 10

ROOTS = ("document", "principal")
KEYWORDS = frozenset({"and", "or", "not", "in", "true", "false", "null"})
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "in", "not in")
ORDERINGS = frozenset({"<", "<=", ">", ">="})

PRINCIPAL_PATHS: dict[str, str] = {
    "principal.member": "number",
    "principal.roles": "list",
    "principal.unit": "string",
}
DOCUMENT_PATHS: dict[str, str] = {
    "document.amount": "number",
    "document.currency": "string",
    "document.kind": "string",
    "document.title": "string",
    "document.requester": "number",
}
FIELD_TYPES: dict[str, str] = {
    "text": "string",
    "number": "number",
    "money": "number",
    "date": "date",
    "choice": "string",
    "bool": "bool",
}
STATIC_TYPES = frozenset({"number", "string", "bool", "date", "list", "null"})
# Members are compared by id, so a "member" is statically just a number.
TYPE_ALIASES = {"member": "number"}
UNKNOWN = "unknown"

# IEEE decimal128 bounds: room for any money amount, yet a runaway product of facts still
# overflows cleanly instead of growing without limit.
DECIMAL_CONTEXT = decimal.Context(
    prec=34,
    rounding=decimal.ROUND_HALF_EVEN,
    Emin=-6143,
    Emax=6144,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
)


class GuardSyntaxError(DomainError):
    """The source is not a guard; ``params["column"]`` points at the offending character."""

    @property
    def column(self) -> int:
        return int(self.params["column"])


class GuardEvalError(DomainError):
    """A well-formed guard could not be evaluated against these facts; the guard fails closed."""

    @property
    def column(self) -> int:
        return int(self.params["column"])


# --- the tree --------------------------------------------------------------------------------
# Every node keeps the column it came from so that runtime and checker problems point at the
# source. Chains of the same precedence level (``a + b - c``, ``a and b and c``) are kept flat
# rather than as a left-leaning binary tree: a 500-character chain then stays one node deep,
# and walking the tree never needs more Python stack than the nesting limit allows.


@dataclass(frozen=True)
class Literal:
    value: Decimal | str | bool | None
    column: int


@dataclass(frozen=True)
class Path:
    name: str
    column: int


@dataclass(frozen=True)
class ListOf:
    items: tuple[Node, ...]
    column: int


@dataclass(frozen=True)
class Negate:
    operand: Node
    column: int


@dataclass(frozen=True)
class Not:
    operand: Node
    column: int


@dataclass(frozen=True)
class Arithmetic:
    """``first`` followed by (operator, column, operand) steps, applied left to right."""

    first: Node
    steps: tuple[tuple[str, int, Node], ...]


@dataclass(frozen=True)
class Comparison:
    operator: str
    left: Node
    right: Node
    column: int


@dataclass(frozen=True)
class Logical:
    """``operands`` joined by one ``operator``; ``columns[i]`` is the i-th operator's column."""

    operator: str
    operands: tuple[Node, ...]
    columns: tuple[int, ...]


Node = Literal | Path | ListOf | Negate | Not | Arithmetic | Comparison | Logical


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, ListOf):
        return node.items
    if isinstance(node, Negate | Not):
        return (node.operand,)
    if isinstance(node, Arithmetic):
        return (node.first, *(operand for _, _, operand in node.steps))
    if isinstance(node, Comparison):
        return (node.left, node.right)
    if isinstance(node, Logical):
        return node.operands
    return ()


def _start(node: Node) -> int:
    """The column where the expression a node stands for begins."""
    while True:
        if isinstance(node, Arithmetic):
            node = node.first
        elif isinstance(node, Comparison):
            node = node.left
        elif isinstance(node, Logical):
            node = node.operands[0]
        else:
            return node.column


@dataclass(frozen=True)
class Guard:
    source: str
    # The tree follows from the source, so equality, hashing and repr use the source alone.
    tree: Node = field(repr=False, compare=False)

    def paths(self) -> frozenset[str]:
        """Every dotted path the expression reads."""
        found: set[str] = set()
        pending: list[Node] = [self.tree]
        while pending:
            node = pending.pop()
            if isinstance(node, Path):
                found.add(node.name)
            pending.extend(_children(node))
        return frozenset(found)


# --- tokenizer -------------------------------------------------------------------------------

# ASCII only on purpose: str.isdigit() and str.isalpha() accept other scripts' digits and letters.
_DIGITS = frozenset(string.digits)
_LOWER = frozenset(string.ascii_lowercase)
_WORD_START = frozenset(string.ascii_letters + "_")
_WORD = _WORD_START | _DIGITS
# A number or a path is read up to the first character that cannot continue a word, so
# ``12abc`` or ``1.2.3`` is one bad number rather than a number glued to something else.
_WORD_OR_DOT = _WORD | {"."}
_SEGMENT_REST = _LOWER | _DIGITS | {"_"}
# Browsers submit textarea line breaks as CRLF, so a carriage return is whitespace too.
_SPACE = frozenset(" \t\n\r")
_QUOTES = frozenset("'\"")
_ESCAPABLE = frozenset("\\'\"")
_TWO_CHAR_OPERATORS = frozenset({"==", "!=", "<=", ">="})
_ONE_CHAR_OPERATORS = frozenset("<>+-*/()[],")


class Token(NamedTuple):
    kind: str  # "number", "string", "keyword", "path", "operator" or "end"
    text: str  # as written in the source
    column: int
    value: Any = None


def _syntax(code: str, column: int, **params: Any) -> GuardSyntaxError:
    return GuardSyntaxError(code, column=column, **params)


def _shown(char: str) -> str:
    # An invisible character would make "Unexpected character “”" unreadable.
    return char if char.isprintable() and char not in _SPACE else f"U+{ord(char):04X}"


class _Lexer:
    """Reads tokens on demand, so errors surface in source order (left to right)."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._position = 0
        self._ahead: list[Token] = []

    def peek(self, offset: int = 0) -> Token:
        while len(self._ahead) <= offset:
            self._ahead.append(self._read())
        return self._ahead[offset]

    def next(self) -> Token:
        token = self.peek()
        self._ahead.pop(0)
        return token

    def _read(self) -> Token:
        source, i = self._source, self._position
        while i < len(source) and source[i] in _SPACE:
            i += 1
        if i >= len(source):
            self._position = i
            return Token("end", "", len(source) + 1)
        char = source[i]
        if char in _DIGITS:
            token, end = self._number(i)
        elif char in _WORD_START:
            token, end = self._word(i)
        elif char in _QUOTES:
            token, end = self._string(i)
        elif source[i : i + 2] in _TWO_CHAR_OPERATORS:
            token, end = Token("operator", source[i : i + 2], i + 1), i + 2
        elif char in _ONE_CHAR_OPERATORS:
            token, end = Token("operator", char, i + 1), i + 1
        else:
            raise _syntax("guard_unexpected_character", i + 1, char=_shown(char))
        self._position = end
        return token

    def _run(self, start: int) -> int:
        end = start
        while end < len(self._source) and self._source[end] in _WORD_OR_DOT:
            end += 1
        return end

    def _number(self, start: int) -> tuple[Token, int]:
        end = self._run(start)
        text = self._source[start:end]
        whole, dot, fraction = text.partition(".")
        if (
            not set(whole) <= _DIGITS
            or not set(fraction) <= _DIGITS
            or len(whole) > MAX_INTEGER_DIGITS
            or (dot and not 1 <= len(fraction) <= MAX_FRACTION_DIGITS)
        ):
            raise _syntax("guard_bad_number", start + 1, text=text)
        return Token("number", text, start + 1, Decimal(text)), end

    def _word(self, start: int) -> tuple[Token, int]:
        end = self._run(start)
        text = self._source[start:end]
        if text in KEYWORDS:
            return Token("keyword", text, start + 1), end
        segments = text.split(".")
        # A bare name (``foo``, ``True``, ``__import__``, even ``document`` alone) and any other
        # root are refused here: the only names a guard can read are document/principal paths.
        if len(segments) == 1 or segments[0] not in ROOTS:
            raise _syntax("guard_unknown_name", start + 1, name=text)
        offset = start
        for segment in segments:
            if not segment or segment[0] not in _LOWER or not set(segment) <= _SEGMENT_REST:
                # Points at the bad segment: ``document.__class__`` blames ``__class__``.
                raise _syntax("guard_unknown_name", offset + 1, name=text)
            offset += len(segment) + 1
        return Token("path", text, start + 1), end

    def _string(self, start: int) -> tuple[Token, int]:
        source, quote = self._source, self._source[start]
        chars: list[str] = []
        i = start + 1
        while True:
            if i >= len(source):
                raise _syntax("guard_unterminated_string", start + 1)
            char = source[i]
            if char == quote:
                break
            if char == "\\":
                if i + 1 >= len(source):
                    raise _syntax("guard_unterminated_string", start + 1)
                if source[i + 1] not in _ESCAPABLE:
                    raise _syntax("guard_unexpected_character", i + 1, char="\\")
                chars.append(source[i + 1])
                i += 2
            else:
                chars.append(char)
                i += 1
        if len(chars) > MAX_STRING:
            raise _syntax("guard_string_too_long", start + 1, limit=MAX_STRING)
        return Token("string", source[start : i + 1], start + 1, "".join(chars)), i + 1


# --- parser ----------------------------------------------------------------------------------

_LITERAL_KEYWORDS: dict[str, bool | None] = {"true": True, "false": False, "null": None}


def _is(token: Token, kind: str, text: str) -> bool:
    return token.kind == kind and token.text == text


class _Parser:
    """One method per precedence level, loosest first; ``_depth`` bounds the recursion."""

    def __init__(self, source: str) -> None:
        self._tokens = _Lexer(source)
        self._depth = 0

    def guard(self) -> Node:
        if self._tokens.peek().kind == "end":
            raise _syntax("guard_empty", 1)
        tree = self._or()
        self._expect_end()
        return tree

    def _enter(self, token: Token) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _syntax("guard_too_deep", token.column, limit=MAX_DEPTH)

    def _or(self) -> Node:
        return self._logical("or", self._and)

    def _and(self) -> Node:
        return self._logical("and", self._not)

    def _logical(self, operator: str, operand: Callable[[], Node]) -> Node:
        operands = [operand()]
        columns: list[int] = []
        while _is(self._tokens.peek(), "keyword", operator):
            columns.append(self._tokens.next().column)
            operands.append(operand())
        if len(operands) == 1:
            return operands[0]
        return Logical(operator, tuple(operands), tuple(columns))

    def _not(self) -> Node:
        token = self._tokens.peek()
        if not _is(token, "keyword", "not"):
            return self._comparison()
        self._tokens.next()
        self._enter(token)
        operand = self._not()
        self._depth -= 1
        return Not(operand, token.column)

    def _comparison_operator(self) -> str | None:
        token = self._tokens.peek()
        if token.kind == "operator" and token.text in COMPARISONS:
            return token.text
        if _is(token, "keyword", "in"):
            return "in"
        if _is(token, "keyword", "not") and _is(self._tokens.peek(1), "keyword", "in"):
            return "not in"
        return None

    def _comparison(self) -> Node:
        left = self._additive()
        operator = self._comparison_operator()
        if operator is None:
            return left
        column = self._tokens.next().column
        if operator == "not in":
            self._tokens.next()
        right = self._additive()
        if self._comparison_operator() is not None:
            # ``a < b < c`` reads as a range but would compare a boolean with c; say so.
            raise _syntax("guard_chained_comparison", self._tokens.peek().column)
        return Comparison(operator, left, right, column)

    def _additive(self) -> Node:
        return self._arithmetic(("+", "-"), self._multiplicative)

    def _multiplicative(self) -> Node:
        return self._arithmetic(("*", "/"), self._unary)

    def _arithmetic(self, operators: tuple[str, str], operand: Callable[[], Node]) -> Node:
        first = operand()
        steps: list[tuple[str, int, Node]] = []
        while (token := self._tokens.peek()).kind == "operator" and token.text in operators:
            self._tokens.next()
            steps.append((token.text, token.column, operand()))
        return Arithmetic(first, tuple(steps)) if steps else first

    def _unary(self) -> Node:
        token = self._tokens.peek()
        if not _is(token, "operator", "-"):
            return self._primary()
        self._tokens.next()
        self._enter(token)
        operand = self._unary()
        self._depth -= 1
        return Negate(operand, token.column)

    def _primary(self) -> Node:
        token = self._tokens.next()
        if token.kind in ("number", "string"):
            return Literal(token.value, token.column)
        if token.kind == "keyword" and token.text in _LITERAL_KEYWORDS:
            return Literal(_LITERAL_KEYWORDS[token.text], token.column)
        if token.kind == "path":
            return Path(token.text, token.column)
        if _is(token, "operator", "("):
            self._enter(token)
            inner = self._or()
            self._expect(")")
            self._depth -= 1
            return inner
        if _is(token, "operator", "["):
            self._enter(token)
            items = self._items()
            self._depth -= 1
            return ListOf(items, token.column)
        raise self._unexpected(token)

    def _items(self) -> tuple[Node, ...]:
        items: list[Node] = []
        if _is(self._tokens.peek(), "operator", "]"):
            self._tokens.next()
            return ()
        while True:
            if len(items) == MAX_ITEMS:
                raise _syntax("guard_list_too_long", self._tokens.peek().column, limit=MAX_ITEMS)
            # After a comma an item must follow, so ``[1, 2,]`` fails on the "]".
            items.append(self._or())
            token = self._tokens.next()
            if _is(token, "operator", "]"):
                return tuple(items)
            if not _is(token, "operator", ","):
                raise self._unexpected(token)

    def _expect(self, text: str) -> None:
        token = self._tokens.next()
        if not _is(token, "operator", text):
            raise self._unexpected(token)

    def _expect_end(self) -> None:
        token = self._tokens.next()
        if token.kind != "end":
            raise self._unexpected(token)

    @staticmethod
    def _unexpected(token: Token) -> GuardSyntaxError:
        if token.kind == "end":
            return _syntax("guard_unexpected_end", token.column)
        return _syntax("guard_unexpected_token", token.column, token=token.text)


def parse(source: str) -> Guard:
    """Parses a guard; raises ``GuardSyntaxError`` (and nothing else) when it is not one."""
    if len(source) > MAX_LENGTH:
        raise _syntax("guard_too_long", MAX_LENGTH + 1, limit=MAX_LENGTH)
    try:
        tree = _Parser(source).guard()
    except RecursionError:
        # Unreachable within the depth limit from a normal stack; kept so that a caller already
        # deep in recursion still gets a syntax error rather than a crash.
        raise _syntax("guard_too_deep", 1, limit=MAX_DEPTH) from None
    return Guard(source, tree)


# --- static check ----------------------------------------------------------------------------


def known_paths(fields: Iterable[tuple[str, str]]) -> dict[str, str]:
    """DOCUMENT_PATHS + PRINCIPAL_PATHS + document.fields.<key> for each (key, field_type).

    A field type this module does not know reads as "unknown", which the checker accepts
    anywhere: a new field type must not make every guard that mentions it unusable.
    """
    paths = {**DOCUMENT_PATHS, **PRINCIPAL_PATHS}
    for key, field_type in fields:
        paths[f"document.fields.{key}"] = FIELD_TYPES.get(field_type, UNKNOWN)
    return paths


@dataclass(frozen=True)
class GuardProblem:
    code: str  # "guard_unknown_path" | "guard_type_mismatch" | "guard_operand_type" | "guard_not_boolean"
    params: dict[str, Any] = field(hash=False)
    column: int

    @property
    def message_params(self) -> dict[str, Any]:
        """The parameters the message in MESSAGES expects, the column included."""
        return {**self.params, "column": self.column}


def _static(declared: str) -> str:
    declared = TYPE_ALIASES.get(declared, declared)
    return declared if declared in STATIC_TYPES else UNKNOWN


def _literal_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Decimal):
        return "number"
    return "string"


def _may_equal(left: str, right: str) -> bool:
    """Whether ``==`` between the two static types can ever be true."""
    if UNKNOWN in (left, right) or "null" in (left, right):
        return True
    if {left, right} <= {"string", "date"}:
        return True  # a date is an ISO string at run time
    return left == right


def _may_order(left: str, right: str) -> bool:
    if UNKNOWN in (left, right):
        return True
    return (left == right == "number") or {left, right} <= {"string", "date"}


class _Checker:
    def __init__(self, paths: Mapping[str, str]) -> None:
        self._paths = paths
        self.problems: list[GuardProblem] = []

    def _report(self, code: str, column: int, **params: Any) -> None:
        self.problems.append(GuardProblem(code, params, column))

    def _needs(self, wanted: str, operator: str, column: int, actual: str) -> None:
        # ``null`` is not waved through here: a null literal where a number or a boolean is
        # required fails every time it runs. Only "unknown" is permissive, so one undeclared
        # path does not cascade into a problem at every operator above it.
        if actual not in (wanted, UNKNOWN):
            self._report("guard_operand_type", column, operator=operator, type=actual)

    def type_of(self, node: Node) -> str:
        if isinstance(node, Literal):
            return _literal_type(node.value)
        if isinstance(node, Path):
            if node.name not in self._paths:
                self._report("guard_unknown_path", node.column, path=node.name)
                return UNKNOWN
            return _static(self._paths[node.name])
        if isinstance(node, ListOf):
            for item in node.items:
                self.type_of(item)
            return "list"
        if isinstance(node, Negate):
            self._needs("number", "-", node.column, self.type_of(node.operand))
            return "number"
        if isinstance(node, Not):
            self._needs("bool", "not", node.column, self.type_of(node.operand))
            return "bool"
        if isinstance(node, Arithmetic):
            return self._arithmetic(node)
        if isinstance(node, Logical):
            return self._logical(node)
        return self._comparison(node)

    def _mismatch(self, operator: str, column: int, left: str, right: str) -> None:
        self._report("guard_type_mismatch", column, operator=operator, left=left, right=right)

    def _arithmetic(self, node: Arithmetic) -> str:
        left = self.type_of(node.first)
        for operator, column, operand in node.steps:
            right = self.type_of(operand)
            if {left, right} - {"number", UNKNOWN}:
                self._mismatch(operator, column, left, right)
            left = "number"  # whatever went wrong was reported once, at its own operator
        return "number"

    def _logical(self, node: Logical) -> str:
        left = self.type_of(node.operands[0])
        for column, operand in zip(node.columns, node.operands[1:], strict=True):
            right = self.type_of(operand)
            if {left, right} - {"bool", UNKNOWN}:
                self._mismatch(node.operator, column, left, right)
            left = "bool"
        return "bool"

    def _comparison(self, node: Comparison) -> str:
        left = self.type_of(node.left)
        if isinstance(node.right, ListOf):
            # Typed item by item, so that ``document.amount in ["10", "20"]`` can blame the
            # items that can never match.
            items = [(self.type_of(item), _start(item)) for item in node.right.items]
            right = "list"
        else:
            items, right = [], self.type_of(node.right)
        operator, column = node.operator, node.column
        if operator in ("==", "!="):
            if not _may_equal(left, right):
                self._mismatch(operator, column, left, right)
        elif operator in ORDERINGS:
            if not _may_order(left, right):
                self._mismatch(operator, column, left, right)
        elif right not in ("list", UNKNOWN):
            self._mismatch(operator, column, left, right)
        else:
            for item_type, item_column in items:
                if not _may_equal(left, item_type):
                    self._mismatch(operator, item_column, left, item_type)
        return "bool"


def check(guard: Guard, paths: Mapping[str, str]) -> list[GuardProblem]:
    """Static check against the flow's declared paths, in source order of discovery.

    Reports unknown paths, obvious type mismatches and a result that is not boolean. It is
    deliberately conservative: a guard with no problems can still fail at run time on a null
    value, a division by zero or an overflow, and then it fails closed.
    """
    checker = _Checker(paths)
    result = checker.type_of(guard.tree)
    if result not in ("bool", UNKNOWN):
        checker.problems.append(
            GuardProblem("guard_not_boolean", {"type": result}, _start(guard.tree))
        )
    return checker.problems


# --- evaluation ------------------------------------------------------------------------------

Value = Decimal | str | bool | None | tuple[Any, ...]


def type_name(value: object) -> str:
    """The guard language's name for a run-time value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list"


def _scalar(value: object) -> Value:
    """A fact value in the language's own types; raises TypeError when it has none."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)  # a plain str: a subclass could redefine == or <
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal) and value.is_finite():
        return value
    # Dates arrive as ISO strings; a date object is accepted as its ISO string. A datetime is
    # not: its string would not order correctly against a plain date.
    if isinstance(value, date) and not isinstance(value, datetime):
        return value.isoformat()
    # Floats are refused rather than converted: money must not pass through binary fractions.
    raise TypeError(type(value).__name__)


def _fact(value: object) -> Value:
    if isinstance(value, list | tuple):
        return tuple(_scalar(item) for item in value)
    if isinstance(value, set | frozenset):
        items = [_scalar(item) for item in value]
        # A set has no order; sorting makes ``principal.roles == [...]`` deterministic.
        return tuple(sorted(items, key=lambda item: (type_name(item), str(item))))
    return _scalar(value)


def _same(left: Value, right: Value) -> bool:
    # Python's own == says True == 1 and compares lists loosely; the language says values of
    # different types are simply unequal.
    if type_name(left) != type_name(right):
        return False
    if isinstance(left, tuple) and isinstance(right, tuple):
        return len(left) == len(right) and all(map(_same, left, right))
    return left == right


class _Evaluator:
    def __init__(self, facts: Mapping[str, object]) -> None:
        self._facts = facts
        self._read: dict[str, Value] = {}

    def value(self, node: Node) -> Value:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Path):
            return self._path(node)
        if isinstance(node, ListOf):
            return tuple(self.value(item) for item in node.items)
        if isinstance(node, Negate):
            operand = self.value(node.operand)
            if not isinstance(operand, Decimal):
                raise _operand_type("-", node.column, operand)
            return _compute(node.column, neg, operand)
        if isinstance(node, Not):
            operand = self.value(node.operand)
            if not isinstance(operand, bool):
                raise _operand_type("not", node.column, operand)
            return not operand
        if isinstance(node, Arithmetic):
            return self._arithmetic(node)
        if isinstance(node, Logical):
            return self._logical(node)
        return self._comparison(node)

    def _path(self, node: Path) -> Value:
        if node.name not in self._read:
            if node.name not in self._facts:
                raise GuardEvalError("guard_missing_value", path=node.name, column=node.column)
            raw = self._facts[node.name]
            try:
                self._read[node.name] = _fact(raw)
            except TypeError as refused:
                raise GuardEvalError(
                    "guard_unsupported_value", path=node.name, type=str(refused), column=node.column
                ) from None
        return self._read[node.name]

    def _arithmetic(self, node: Arithmetic) -> Value:
        result = self.value(node.first)
        for operator, column, operand in node.steps:
            left, right = result, self.value(operand)
            if not (isinstance(left, Decimal) and isinstance(right, Decimal)):
                raise _type_error(operator, column, left, right)
            if operator == "/" and right == 0:
                raise GuardEvalError("guard_division_by_zero", column=column)
            result = _compute(column, _ARITHMETIC[operator], left, right)
        return result

    def _logical(self, node: Logical) -> Value:
        # Short-circuits like Python, but only ever on booleans: no truthiness.
        stop = node.operator == "or"  # the value that decides the whole chain
        left = self.value(node.operands[0])
        if not isinstance(left, bool):
            # The right side is read only to name its type in the message.
            right = self.value(node.operands[1])
            raise _type_error(node.operator, node.columns[0], left, right)
        for column, operand in zip(node.columns, node.operands[1:], strict=True):
            if left is stop:
                return stop
            right = self.value(operand)
            if not isinstance(right, bool):
                raise _type_error(node.operator, column, left, right)
            left = right
        return left

    def _comparison(self, node: Comparison) -> Value:
        left, right = self.value(node.left), self.value(node.right)
        operator = node.operator
        if operator == "==":
            return _same(left, right)
        if operator == "!=":
            return not _same(left, right)
        if operator in ("in", "not in"):
            if not isinstance(right, tuple):
                raise _type_error(operator, node.column, left, right)
            found = any(_same(left, item) for item in right)
            return found if operator == "in" else not found
        both_numbers = isinstance(left, Decimal) and isinstance(right, Decimal)
        both_strings = isinstance(left, str) and isinstance(right, str)
        if not (both_numbers or both_strings):
            raise _type_error(operator, node.column, left, right)
        return _ORDERING[operator](left, right)


_ARITHMETIC = {"+": add, "-": sub, "*": mul, "/": truediv}
_ORDERING = {"<": lt, "<=": le, ">": gt, ">=": ge}


def _compute(column: int, operation: Callable[..., Decimal], *operands: Decimal) -> Decimal:
    """Runs one Decimal operation, turning the local context's traps into guard errors."""
    try:
        return operation(*operands)
    except decimal.DivisionByZero:
        raise GuardEvalError("guard_division_by_zero", column=column) from None
    except decimal.DecimalException:
        raise GuardEvalError("guard_overflow", column=column) from None


def _type_error(operator: str, column: int, left: Value, right: Value) -> GuardEvalError:
    return GuardEvalError(
        "guard_type_error",
        operator=operator,
        left=type_name(left),
        right=type_name(right),
        column=column,
    )


def _operand_type(operator: str, column: int, operand: Value) -> GuardEvalError:
    return GuardEvalError(
        "guard_operand_type", operator=operator, type=type_name(operand), column=column
    )


def evaluate(guard: Guard, facts: Mapping[str, object]) -> object:
    """The guard's value against flat facts (``{"document.amount": Decimal("12.50"), ...}``).

    Numbers come back as ``Decimal``, lists as tuples. Raises ``GuardEvalError`` only.
    """
    with decimal.localcontext(DECIMAL_CONTEXT):
        return _Evaluator(facts).value(guard.tree)


def is_satisfied(guard: Guard, facts: Mapping[str, object]) -> bool:
    """True only if the guard evaluates to exactly ``True``; any GuardEvalError propagates."""
    return evaluate(guard, facts) is True
