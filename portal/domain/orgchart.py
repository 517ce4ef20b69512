"""Pure rules over the shape of an org chart."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date


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


# --- a snapshot of the chart on one day ---------------------------------------------


@dataclass(frozen=True)
class Seat:
    id: int
    code: str
    title: str
    unit_id: int
    reports_to: int | None
    # A retired seat keeps its history but resolves to nobody.
    active: bool = True


@dataclass(frozen=True)
class Unit:
    id: int
    code: str
    name: str
    parent_id: int | None
    head_position_id: int | None


@dataclass(frozen=True)
class ChartSnapshot:
    """The org chart as it stood on ``day``: who held which seat (active members only),
    who sat where primarily, and who holds which organization role. Resolution reads
    nothing else, so it is pure and a decision can record exactly what it saw."""

    day: date
    seats: Mapping[int, Seat] = field(default_factory=dict)
    units: Mapping[int, Unit] = field(default_factory=dict)
    # position id -> active members holding it that day (primary or secondary), sorted
    holders: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # member id -> the position they held primarily that day
    primary: Mapping[int, int] = field(default_factory=dict)
    active_members: frozenset[int] = frozenset()
    # role -> active members holding it, sorted
    roles: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def holders_of(self, position_id: int) -> tuple[int, ...]:
        """Who sits in the seat that day; nobody for a retired or unknown seat."""
        seat = self.seats.get(position_id)
        if seat is None or not seat.active:
            return ()
        return self.holders.get(position_id, ())

    def chain_above(self, position_id: int) -> list[int]:
        """The seats above ``position_id``, nearest first. A corrupt chart with a
        reporting loop stops at the loop instead of walking forever."""
        chain: list[int] = []
        seen = {position_id}
        seat = self.seats.get(position_id)
        while seat is not None and seat.reports_to is not None and seat.reports_to not in seen:
            chain.append(seat.reports_to)
            seen.add(seat.reports_to)
            seat = self.seats.get(seat.reports_to)
        return chain

    def next_filled_above(self, position_id: int, max_levels: int) -> tuple[int, tuple[int, ...]]:
        """The nearest seat above ``position_id``, at most ``max_levels`` up, that someone
        holds: (that seat, its holders), or (0, ()) when there is none in reach."""
        for seat_id in self.chain_above(position_id)[:max_levels]:
            members = self.holders_of(seat_id)
            if members:
                return seat_id, members
        return 0, ()
