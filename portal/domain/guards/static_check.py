"""The static check of a guard against the paths a flow declares: unknown paths, types
that can never match, a result that is not boolean."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

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
    start_column,
)

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
    params: dict[str, str] = field(hash=False)
    column: int

    @property
    def message_params(self) -> dict[str, str | int]:
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

    def _report(self, code: str, column: int, **params: str) -> None:
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
            items = [(self.type_of(item), start_column(item)) for item in node.right.items]
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
            GuardProblem("guard_not_boolean", {"type": result}, start_column(guard.tree))
        )
    return checker.problems
