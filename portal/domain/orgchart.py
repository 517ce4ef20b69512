"""Pure rules over the shape of an org chart."""

from __future__ import annotations

from collections.abc import Mapping


def would_form_cycle(
    parent_of: Mapping[int, int | None], node: int, new_parent: int | None
) -> bool:
    """Whether pointing ``node`` at ``new_parent`` closes a loop.

    ``parent_of`` is the current edge set (reports-to between positions, or parent
    between units). Walks up from the new parent; meeting ``node`` means a cycle. The
    walk is bounded by the number of nodes, so a corrupt chart cannot hang it.
    """
    if new_parent is None:
        return False
    seen: set[int] = set()
    current: int | None = new_parent
    while current is not None and current not in seen:
        if current == node:
            return True
        seen.add(current)
        current = parent_of.get(current)
    return False


def cycle_members(parent_of: Mapping[int, int | None]) -> set[int]:
    """Every node that sits on a cycle of ``parent_of`` (empty for a healthy chart)."""
    on_cycle: set[int] = set()
    done: set[int] = set()
    for start in parent_of:
        path: list[int] = []
        index: dict[int, int] = {}
        current: int | None = start
        while current is not None and current not in done and current not in index:
            index[current] = len(path)
            path.append(current)
            current = parent_of.get(current)
        if current is not None and current in index:
            on_cycle.update(path[index[current] :])
        done.update(path)
    return on_cycle
