"""The guard parser: recursive descent over the tokens, one method per precedence level,
with a depth limit; it builds the tree and never runs anything."""

from __future__ import annotations

from collections.abc import Callable

from portal.domain.guards.errors import GuardSyntaxError, syntax_error
from portal.domain.guards.tokenizer import Lexer, Token
from portal.domain.guards.tree import (
    Arithmetic,
    Comparison,
    Guard,
    ListOf,
    Literal,
    Logical,
    Negate,
    Node,
    Not,
    Path,
)

MAX_LENGTH = 500
MAX_DEPTH = 32
MAX_ITEMS = 64
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "in", "not in")

_LITERAL_KEYWORDS: dict[str, bool | None] = {"true": True, "false": False, "null": None}


def _is(token: Token, kind: str, text: str) -> bool:
    return token.kind == kind and token.text == text


class _Parser:
    """One method per precedence level, loosest first; ``_depth`` bounds the recursion."""

    def __init__(self, source: str) -> None:
        self._tokens = Lexer(source)
        self._depth = 0

    def guard(self) -> Node:
        if self._tokens.peek().kind == "end":
            raise syntax_error("guard_empty", 1)
        tree = self._or()
        self._expect_end()
        return tree

    def _enter(self, token: Token) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise syntax_error("guard_too_deep", token.column, limit=MAX_DEPTH)

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
            raise syntax_error("guard_chained_comparison", self._tokens.peek().column)
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
                raise syntax_error(
                    "guard_list_too_long", self._tokens.peek().column, limit=MAX_ITEMS
                )
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
            return syntax_error("guard_unexpected_end", token.column)
        return syntax_error("guard_unexpected_token", token.column, token=token.text)


def parse(source: str) -> Guard:
    """Parses a guard; raises ``GuardSyntaxError`` (and nothing else) when it is not one."""
    if len(source) > MAX_LENGTH:
        raise syntax_error("guard_too_long", MAX_LENGTH + 1, limit=MAX_LENGTH)
    try:
        tree = _Parser(source).guard()
    except RecursionError:
        # Unreachable within the depth limit from a normal stack; kept so that a caller already
        # deep in recursion still gets a syntax error rather than a crash.
        raise syntax_error("guard_too_deep", 1, limit=MAX_DEPTH) from None
    return Guard(source, tree)
