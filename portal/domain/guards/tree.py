"""The parsed guard: a tree of nodes, each with the column it came from.

Runtime and checker problems point at the source through those columns. Chains of the
same precedence level (``a + b - c``, ``a and b and c``) are kept flat rather than as a
left-leaning binary tree: a 500-character chain then stays one node deep, and walking
the tree never needs more Python stack than the nesting limit allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeAlias


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


Node: TypeAlias = Literal | Path | ListOf | Negate | Not | Arithmetic | Comparison | Logical


def children(node: Node) -> tuple[Node, ...]:
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


def start_column(node: Node) -> int:
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
            pending.extend(children(node))
        return frozenset(found)
