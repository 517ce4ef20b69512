"""Where approvals stall: the figures, pure. How long documents spend in each state, who
moved them on, and how many came in and went out each week.

The words, as the page states them:

- **A visit** to a state lasts from the decision that entered it (the document's
  creation, for the draft it starts in) to the decision that left it. Only *finished*
  visits — left within the period — make the median and the 90th percentile; a visit
  still open counts only among the documents waiting now. A handover, and what a
  passing deadline records (an escalation, a reassignment), change no state: they
  neither end a visit nor start one.
- **Percentiles** are interpolated linearly between the two nearest ranks (PostgreSQL's
  ``percentile_cont``): the median of 1 h and 2 h is 1 h 30 min.
- **An approval** is a member's decision that moved a document on: through a grant's
  gate (not the requester's own acts, nor the system's), into a state that is not a
  rejection, a withdrawal or a dispute (``exclusive.counts``, the rule exclusive
  approval uses). It is counted for the member who decided, cover or not.
- **Submitted** in a week: the document's first move (out of the draft it was created
  in, moving it on) was then — a resubmission after rework is not a new document.
  **Finished**: it entered a terminal state for the first time then (a dispute that
  ends back in "Received" finishes nothing twice). Weeks are ISO weeks (Monday to
  Sunday) in the organization's zone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple

from portal.domain.days import iso_day
from portal.domain.errors import DomainError
from portal.domain.time_zones import end_of_day, zone

# The period the page opens on: the current ISO week and the eleven before it.
DEFAULT_WEEKS = 12
# Two years of weeks is as much as one chart can show; longer is refused.
MAX_PERIOD_DAYS = 2 * 366
_VERSION = re.compile(r"[0-9]{1,10}")
# A query-string value echoed in a message is cut to this many characters.
_SHOWN = 40
# The version filter that takes every version of a flow.
ALL_VERSIONS = "all"


@dataclass(frozen=True)
class Period:
    """Whole days in the organization's zone, both ends included."""

    start: date
    end: date

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def default_period(today: date) -> Period:
    """The current ISO week and the eleven before it, up to today."""
    return Period(monday_of(today) - timedelta(weeks=DEFAULT_WEEKS - 1), today)


def parse_day(text: str, *, field: str) -> date:
    """``YYYY-MM-DD`` in ASCII digits, a real day; ``invalid_date`` otherwise."""
    day = iso_day(text)
    if day is None:
        raise DomainError("invalid_date", field=field, value=text[:_SHOWN])
    return day


def parse_period(start_text: str, end_text: str, today: date) -> Period:
    """The period a query string asks for: either end may be left out (the last twelve
    weeks up to today, or up to the end given). Refused: a day that is not one
    (``invalid_date``), an end before the start (``dates_out_of_order``), more than
    ``MAX_PERIOD_DAYS`` (``stalls_period_too_long``)."""
    end = parse_day(end_text, field="to") if end_text else today
    start = parse_day(start_text, field="from") if start_text else default_period(end).start
    if end < start:
        raise DomainError("dates_out_of_order", field="to")
    period = Period(start, end)
    if period.days > MAX_PERIOD_DAYS:
        raise DomainError("stalls_period_too_long", field="from", days=MAX_PERIOD_DAYS)
    return period


def parse_version(text: str) -> int | None:
    """A version number (ASCII digits), or None for every version (empty or "all");
    ``stalls_unknown_version`` for anything else (the caller checks that it exists)."""
    if text in ("", ALL_VERSIONS):
        return None
    if _VERSION.fullmatch(text) and 1 <= int(text) <= 2**31 - 1:
        return int(text)
    raise DomainError("stalls_unknown_version", field="version", version=text[:_SHOWN])


# --- the history, as the figures read it ---------------------------------------------------


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The ``fraction`` percentile (0..1) of ascending values, interpolated linearly
    between the nearest ranks (PostgreSQL's ``percentile_cont``); 0 for no values."""
    if not ordered:
        return 0.0
    position = fraction * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


@dataclass(frozen=True)
class StateTime:
    state: str
    visits: int
    median_seconds: float
    p90_seconds: float
    longest_seconds: float


def state_time(state: str, durations: Iterable[float]) -> StateTime:
    """The finished visits to a state, from their durations in seconds."""
    values = sorted(max(0.0, d) for d in durations)
    return StateTime(
        state,
        len(values),
        percentile(values, 0.5),
        percentile(values, 0.9),
        values[-1] if values else 0.0,
    )


def in_order(times: Iterable[StateTime], order: Sequence[str]) -> list[StateTime]:
    """The states in ``order`` (the flow's), any outside it after, by key."""
    rank = {key: i for i, key in enumerate(order)}
    return sorted(times, key=lambda t: (rank.get(t.state, len(rank)), t.state))


class MoveGroup(NamedTuple):
    """Moves of members, counted alike (a row of ``documents.queries.stalls``)."""

    version: int
    actor_id: int
    from_state: str
    transition: str
    to_state: str
    gate: str
    via: str
    moves: int


@dataclass(frozen=True)
class ApproverCount:
    member_id: int
    approvals: int
    # Of which taken under someone's cover (via = delegation).
    under_cover: int
    # (from_state, transition) -> how many, in the order first met.
    by_action: tuple[tuple[tuple[str, str], int], ...]


def approvals(
    groups: Iterable[MoveGroup], is_approval: Callable[[MoveGroup], bool]
) -> list[ApproverCount]:
    """Each member's approvals among ``groups`` (``is_approval`` applies the rule with
    the document's flow), most first, then by member id; each member's actions in the
    flow's order of states and actions as given."""
    totals: dict[int, int] = {}
    covered: dict[int, int] = {}
    actions: dict[int, dict[tuple[str, str], int]] = {}
    for group in groups:
        if not is_approval(group):
            continue
        member = group.actor_id
        totals[member] = totals.get(member, 0) + group.moves
        if group.via == "delegation":
            covered[member] = covered.get(member, 0) + group.moves
        per_action = actions.setdefault(member, {})
        key = (group.from_state, group.transition)
        per_action[key] = per_action.get(key, 0) + group.moves
    ranked = sorted(totals, key=lambda m: (-totals[m], m))
    return [
        ApproverCount(m, totals[m], covered.get(m, 0), tuple(actions[m].items())) for m in ranked
    ]


@dataclass(frozen=True)
class WeekCount:
    # The Monday that starts the ISO week, in the organization's zone.
    monday: date
    submitted: int
    finished: int

    @property
    def iso_week(self) -> tuple[int, int]:
        year, week, _ = self.monday.isocalendar()
        return year, week

    @property
    def sunday(self) -> date:
        return self.monday + timedelta(days=6)


@dataclass(frozen=True)
class Weeks:
    """The ISO weeks a period touches, in the organization's zone."""

    mondays: tuple[date, ...]
    # When each begins, in UTC (the first at the period's own start, when that is not a
    # Monday); the last ends at ``end``.
    starts: tuple[datetime, ...]
    end: datetime

    def counted(self, counts: Mapping[int, tuple[int, int]]) -> list[WeekCount]:
        """Every week with its (submitted, finished), empty weeks included, so the trend
        has no gaps."""
        return [WeekCount(monday, *counts.get(i, (0, 0))) for i, monday in enumerate(self.mondays)]


def weeks_of(period: Period, zone_name: str) -> Weeks:
    first = monday_of(period.start)
    count = (monday_of(period.end) - first).days // 7 + 1
    mondays = tuple(first + timedelta(weeks=i) for i in range(count))
    starts = tuple(_first_instant(max(m, period.start), zone_name) for m in mondays)
    return Weeks(mondays, starts, utc_bounds(period, zone_name)[1])


def _first_instant(day: date, zone_name: str) -> datetime:
    """The first instant of ``day`` in the zone, in UTC."""
    return datetime.combine(day, time(), tzinfo=zone(zone_name)).astimezone(UTC)


def utc_bounds(period: Period, zone_name: str) -> tuple[datetime, datetime]:
    """The period as UTC instants [start, end): from the first instant of its first day
    to the first instant after its last, in the organization's zone."""
    end = end_of_day(period.end, zone_name).astimezone(UTC)
    return _first_instant(period.start, zone_name), end
