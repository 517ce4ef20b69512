"""Guard evaluation against flat facts, in decimal arithmetic, failing closed."""

from __future__ import annotations

import decimal
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from operator import add, ge, gt, le, lt, mul, neg, sub, truediv
from typing import TypeAlias

from portal.domain.guards.errors import GuardEvalError
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

# IEEE decimal128 bounds: room for any money amount, yet a runaway product of facts still
# overflows cleanly instead of growing without limit.
DECIMAL_CONTEXT = decimal.Context(
    prec=34,
    rounding=decimal.ROUND_HALF_EVEN,
    Emin=-6143,
    Emax=6144,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
)

Value: TypeAlias = Decimal | str | bool | tuple["Value", ...] | None


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
        # Only two numbers or two strings are ordered; bool() since operator.lt & co. return Any.
        if isinstance(left, Decimal) and isinstance(right, Decimal):
            return bool(_ORDERING[operator](left, right))
        if isinstance(left, str) and isinstance(right, str):
            return bool(_ORDERING[operator](left, right))
        raise _type_error(operator, node.column, left, right)


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
