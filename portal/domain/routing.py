"""The route of a document: for a flow, a requester and an amount, who would decide
each approval step — and what would strand it.

The steps are the states entered through target-gated transitions, in the order the
flow draws them; each step's grants are its own plus the all-states ones. A step is
routable when its band has someone other than the requester and no grant between the
winning floor and the amount has a gap: a grant that should decide this amount and
finds nobody must not silently hand the decision down to a smaller band. Other gaps
(above the amount, below or beside the winning band) do not stop this document and
are reported apart, since they would strand another amount.

Under exclusive approval (``domain.exclusive``) each step's band is what is left once
the members spent on another step are taken out, and a step nobody is left for — or
that cannot be given a decider of its own — has the gap ``exclusive_approval``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from portal.domain.exclusive import Decided, Exclusion, staff
from portal.domain.graph import Graph
from portal.domain.ladder import Band, band_for
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Gap, GapReason, Resolution, resolve_all


@dataclass(frozen=True)
class Step:
    state: str
    resolutions: tuple[Resolution, ...]
    band: Band | None
    # What stops a document of this amount here; empty when the step is routable.
    gaps: tuple[Gap, ...]
    # Gaps that do not stop this amount (above it, or at or below the winning floor):
    # a document of another amount could be stranded by them.
    other_gaps: tuple[Gap, ...]
    # Under exclusive approval: the band's members who cannot decide here, and why.
    excluded: tuple[Exclusion, ...] = ()

    @property
    def routable(self) -> bool:
        return not self.gaps

    @property
    def eligible(self) -> tuple[int, ...]:
        """Who may decide: the band, without anyone exclusive approval leaves out."""
        if self.band is None:
            return ()
        if not self.excluded:
            return self.band.members
        out = {e.member for e in self.excluded}
        return tuple(m for m in self.band.members if m not in out)


@dataclass(frozen=True)
class Route:
    requester: int
    amount: Decimal
    day: date
    steps: tuple[Step, ...]

    @property
    def routable(self) -> bool:
        return all(step.routable for step in self.steps)

    def first_gap(self) -> tuple[Step, Gap] | None:
        """Where and why a submission would be refused."""
        for step in self.steps:
            if step.gaps:
                return step, step.gaps[0]
        return None


def route_step(
    graph: Graph, state: str, requester: int, amount: Decimal, chart: ChartSnapshot
) -> Step:
    grants = [(i, g) for i, g in enumerate(graph.grants) if g.covers(state)]
    return step_of(state, resolve_all(grants, requester, chart), requester, amount)


def step_of(state: str, resolutions: Sequence[Resolution], requester: int, amount: Decimal) -> Step:
    """A step from its grants' resolutions: who decides ``amount``, or what stops it
    (resolving once, a step can be asked about several amounts)."""
    band = band_for(resolutions, amount, requester)
    floor = band.floor if band is not None else None
    gaps: list[Gap] = []
    other: list[Gap] = []
    for r in resolutions:
        if r.gap is None:
            continue
        stops = r.floor <= amount and (floor is None or r.floor > floor)
        (gaps if stops else other).append(r.gap)
    if not gaps:
        if band is None:
            gaps.append(Gap(GapReason.NO_BAND))
        elif not band.members:
            gaps.append(Gap(GapReason.ONLY_THE_REQUESTER, member_id=requester))
    return Step(state, tuple(resolutions), band, tuple(gaps), tuple(other))


def route(
    graph: Graph,
    requester: int,
    amount: Decimal,
    chart: ChartSnapshot,
    decided: Decided | None = None,
) -> Route:
    """Every approval step; under exclusive approval, staffed with distinct people given
    who has ``decided`` which step of the document already (nobody, before submission)."""
    steps = tuple(
        route_step(graph, state, requester, amount, chart) for state in graph.approval_states()
    )
    if graph.exclusive_approval:
        forward = set(graph.exclusive_steps())
        staffed = iter(
            exclusive_steps(tuple(s for s in steps if s.state in forward), decided or {})
        )
        steps = tuple(next(staffed) if s.state in forward else s for s in steps)
    return Route(requester, amount, chart.day, steps)


def exclusive_steps(steps: tuple[Step, ...], decided: Decided) -> tuple[Step, ...]:
    """The steps with exclusive approval applied: the members left out of each band, and
    the gap ``exclusive_approval`` where nobody is left (on a step routable otherwise:
    a step already stranded says so in its own words)."""
    # A stranded step decides nothing: its band takes no part in the matching.
    staffed = staff([(s.state, s.eligible if s.routable else ()) for s in steps], decided)
    out = []
    for step, found in zip(steps, staffed, strict=True):
        if not step.routable:
            out.append(step)
            continue
        gaps = (Gap(GapReason.EXCLUSIVE_APPROVAL),) if found.stranded else ()
        out.append(replace(step, excluded=found.excluded, gaps=gaps))
    return tuple(out)
