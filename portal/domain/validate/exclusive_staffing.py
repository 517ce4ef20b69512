"""Exclusive approval against the org chart: a warning for each approval step the chart
leaves with nobody for some requester once the other steps have their own deciders —
most often a requester whose superior also heads their unit, so "reviewed" and
"approved" need two people where the chart has one (``domain.exclusive``).

Reported with the checks beyond the numbered rules (rule 8), as a warning: the chart
changes without a publish, so it cannot block one. Only the database knows the chart,
so ``validate`` does not run it: the caller hands in the snapshot of the day
(``orgchart.queries.load_chart``) and, for the message, the names of whom it found.

Every active member is tried as a requester, at each amount where a band changes (every
floor of the route, and zero). A route already stranded for another reason (a vacant
seat, no primary position, no band) is left to the routing preview and readiness, which
say why: the warning is for documents this rule alone would stop.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from portal.domain.graph import Graph
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import GapReason, Resolution, resolve_all
from portal.domain.routing import Step, exclusive_steps, step_of
from portal.domain.validate.violations import Violation, violation

# Named in a message: at most this many deciders and competing steps.
_NAMED = 3


@dataclass(frozen=True)
class Unstaffed:
    """An approval step exclusive approval leaves with nobody, for some requesters."""

    state: str
    # Every requester it happens to, sorted; the first is the example the message names.
    requesters: tuple[int, ...]
    # For the example: who may decide the step, and the other steps that need them.
    deciders: tuple[int, ...]
    competing: tuple[str, ...]


def unstaffed_steps(graph: Graph, chart: ChartSnapshot) -> list[Unstaffed]:
    """The steps some requester's document would be stranded on, in route order."""
    states = graph.exclusive_steps()
    if not graph.exclusive_approval or len(states) < 2:
        return []
    grants = {s: [(i, g) for i, g in enumerate(graph.grants) if g.covers(s)] for s in states}
    amounts = sorted({g.floor for pairs in grants.values() for _, g in pairs} | {Decimal(0)})
    found: dict[str, list[int]] = {}
    example: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}
    # Requesters whose steps have the same bands (colleagues under one lead) are staffed
    # alike: each set of bands is matched once.
    seen: dict[tuple[tuple[int, ...], ...], _Stranded] = {}
    # What a grant finds depends on the requester's place only through the seat above
    # theirs and their unit, and on the requester only where it finds them: resolved
    # once per place for a stand-in, whose answer holds for everyone it does not name.
    by_place: dict[tuple[int | None, int | None], tuple[set[int], _Stranded]] = {}
    for requester in sorted(chart.active_members):
        place = _place(chart, requester)
        if place not in by_place:
            stand_in = _stand_in(chart, requester)
            resolved = {s: resolve_all(grants[s], _STAND_IN, stand_in) for s in states}
            named = {m for found in resolved.values() for r in found for m in r.members}
            by_place[place] = (named, _stranded_for(states, resolved, _STAND_IN, amounts, seen))
        named, stranded = by_place[place]
        if requester in named:
            resolved = {s: resolve_all(grants[s], requester, chart) for s in states}
            stranded = _stranded_for(states, resolved, requester, amounts, seen)
        for state, (deciders, competing) in stranded.items():
            found.setdefault(state, []).append(requester)
            example.setdefault(state, (deciders, competing))
    return [
        Unstaffed(s, tuple(found[s]), example[s][0], example[s][1]) for s in states if s in found
    ]


# state -> (the step's deciders, the other steps that need them)
_Stranded = dict[str, tuple[tuple[int, ...], tuple[str, ...]]]

# A requester no chart holds: nobody it finds is removed as "the requester".
_STAND_IN = -1


def _place(chart: ChartSnapshot, requester: int) -> tuple[int | None, int | None]:
    """Where a requester sits, as resolution reads it: the seat above their primary seat,
    and its unit ((None, None) without a primary seat)."""
    seat = chart.seats.get(chart.primary.get(requester, 0))
    return (seat.reports_to, seat.unit_id) if seat is not None else (None, None)


def _stand_in(chart: ChartSnapshot, requester: int) -> ChartSnapshot:
    """The chart with the stand-in sitting where ``requester`` sits."""
    seat = chart.primary.get(requester)
    if seat is None or seat not in chart.seats:
        return chart
    return replace(chart, primary=_WithStandIn(chart.primary, seat))


class _WithStandIn(Mapping[int, int]):
    """Primary seats with the stand-in's added, without copying everyone's."""

    def __init__(self, primary: Mapping[int, int], seat: int) -> None:
        self._primary, self._seat = primary, seat

    def __getitem__(self, member: int) -> int:
        return self._seat if member == _STAND_IN else self._primary[member]

    def __iter__(self) -> Iterator[int]:
        yield _STAND_IN
        yield from self._primary

    def __len__(self) -> int:
        return len(self._primary) + 1


def _stranded_for(
    states: Sequence[str],
    resolved: Mapping[str, Sequence[Resolution]],
    requester: int,
    amounts: Sequence[Decimal],
    seen: dict[tuple[tuple[int, ...], ...], _Stranded],
) -> _Stranded:
    """The steps stranded by the rule for one requester at any of ``amounts``, each with
    its deciders and the other steps that need them (at the first amount it happens)."""
    out: _Stranded = {}
    for amount in amounts:
        plain = tuple(step_of(s, resolved[s], requester, amount) for s in states)
        if not all(step.routable for step in plain):
            continue
        bands = tuple(step.eligible for step in plain)
        if bands not in seen:
            seen[bands] = _stranded_steps(plain)
        for state, found in seen[bands].items():
            out.setdefault(state, found)
    return out


def _stranded_steps(plain: tuple[Step, ...]) -> _Stranded:
    out: _Stranded = {}
    steps = exclusive_steps(plain, {})
    for step in steps:
        if not _stranded_by_the_rule(step):
            continue
        deciders = step.band.members if step.band else ()
        competing = sorted({e.step for e in step.excluded}) or [
            other.state
            for other in steps
            if other.state != step.state and set(other.eligible) & set(deciders)
        ]
        out[step.state] = (deciders, tuple(competing))
    return out


def _stranded_by_the_rule(step: Step) -> bool:
    return any(g.reason == GapReason.EXCLUSIVE_APPROVAL for g in step.gaps)


def unstaffed_violations(
    found: Sequence[Unstaffed], graph: Graph, names: Mapping[int, str]
) -> list[Violation]:
    """The warnings for ``found``, naming people from ``names`` (an id without a name
    is shown as "#id")."""
    index = {s.key: i for i, s in enumerate(graph.states)}

    def name(member: int) -> str:
        return names.get(member, f"#{member}")

    out = []
    for item in found:
        deciders = [name(m) for m in item.deciders[:_NAMED]]
        if len(item.deciders) > _NAMED:
            deciders.append("…")
        out.append(
            violation(
                "exclusive_approval_unstaffed",
                {"state": item.state},
                f"states[{index.get(item.state, 0)}]",
                state=item.state,
                num=len(item.requesters),
                requester=name(item.requesters[0]),
                deciders=", ".join(deciders),
                other=", ".join(item.competing[:_NAMED]),
            )
        )
    return out


def mentioned(found: Sequence[Unstaffed]) -> set[int]:
    """The members ``unstaffed_violations`` names: the names to look up."""
    return {m for item in found for m in (item.requesters[0], *item.deciders[:_NAMED])}
