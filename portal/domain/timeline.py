"""A document's path through its flow and the time it spent in each state, from its
history alone: the audit timeline shows both, and the diagram highlights the path.

A visit to a state lasts from the decision that entered it (or the document's creation,
for the state it started in) to the decision that left it; the state it is in now
counts up to ``now``. Decisions that leave the state where it was (a handover, what a
passing deadline did to the tasks) are not moves: the visit goes on.

Pure: the caller passes the times (UTC, aware or naive alike) and the clock's now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Move:
    """One decision as the path sees it."""

    seq: int
    from_state: str
    to_state: str
    at: datetime

    @property
    def moves(self) -> bool:
        return self.from_state != self.to_state


@dataclass(frozen=True)
class Visit:
    state: str
    entered_at: datetime
    # None while the document is still there.
    left_at: datetime | None
    duration: timedelta
    # The decision that entered the state (None for the state it started in).
    entered_by: int | None = None

    @property
    def open(self) -> bool:
        return self.left_at is None


@dataclass(frozen=True)
class StateTotal:
    state: str
    visits: int
    total: timedelta
    # Whether the document is in this state now (its total is still growing).
    current: bool


@dataclass(frozen=True)
class TimeInStates:
    visits: tuple[Visit, ...]
    # One per state visited, in the order each was first entered.
    totals: tuple[StateTotal, ...]

    @property
    def elapsed(self) -> timedelta:
        return sum((v.duration for v in self.visits), timedelta())


def path_of(moves: Sequence[Move]) -> list[Move]:
    """The decisions that moved the document, in order (``seq``)."""
    return [m for m in sorted(moves, key=lambda m: m.seq) if m.moves]


def time_in_states(
    created_at: datetime,
    moves: Sequence[Move],
    current_state: str,
    now: datetime,
    *,
    finished: bool = False,
) -> TimeInStates:
    """Each visit with its duration, and the totals per state. A document with no
    decision has spent all its life in ``current_state``; a ``finished`` one (in a
    terminal state) spends none there: its life ended with the move into it. A clock
    that went backwards (a decision stamped before the one it follows) counts as no
    time, never negative."""
    path = path_of(moves)
    state = path[0].from_state if path else current_state
    entered_at, entered_by = created_at, None
    visits: list[Visit] = []
    for move in path:
        visits.append(Visit(state, entered_at, move.at, _span(entered_at, move.at), entered_by))
        state, entered_at, entered_by = move.to_state, move.at, move.seq
    if not finished:
        visits.append(Visit(state, entered_at, None, _span(entered_at, now), entered_by))

    order: dict[str, list[Visit]] = {}
    for visit in visits:
        order.setdefault(visit.state, []).append(visit)
    totals = tuple(
        StateTotal(
            state=key,
            visits=len(seen),
            total=sum((v.duration for v in seen), timedelta()),
            current=any(v.open for v in seen),
        )
        for key, seen in order.items()
    )
    return TimeInStates(tuple(visits), totals)


def _span(start: datetime, end: datetime) -> timedelta:
    return max(_naive(end) - _naive(start), timedelta())


def _naive(moment: datetime) -> datetime:
    """UTC without its zone: stored times come back naive from SQLite, aware from
    PostgreSQL, and both are UTC."""
    if moment.tzinfo is None:
        return moment
    offset = moment.utcoffset() or timedelta()
    return (moment - offset).replace(tzinfo=None)
