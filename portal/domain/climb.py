"""Who is next above a task's holder: the walk up the org chart that an escalation and a
reassignment take, pure over the chart of the day.

The walk starts at the holder's primary seat — or, for a holder who has none on the
chart of the day (deactivated, or moved out), at the seat of their most recent primary
holding, which the caller reads — and climbs at most ``reach`` seats (the grants'
``max_escalation_levels`` less the seats the task climbed already). A vacant seat is
passed; so is a seat whose holders may not decide the step (the requester; in a
dispute, whoever raised it; under exclusive approval, whoever decided another step).
The first seat with someone who may is reached. Nobody in reach is a gap, with the
reason for the first seat that stood in the way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from portal.domain.dispute import raised_the_dispute
from portal.domain.exclusive import other_step
from portal.domain.graph import Graph
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Gap, GapReason


@dataclass(frozen=True)
class Reached:
    """The seat an escalation or reassignment reached."""

    position_id: int
    # How many seats above the holder's it is.
    climbed: int
    # Its holders who may decide the step.
    members: tuple[int, ...]


def climb(
    chart: ChartSnapshot,
    holder: int,
    reach: int,
    refusal: Callable[[int], str | None],
    *,
    former_seat: int | None = None,
) -> Reached | Gap:
    """The next seat above ``holder``'s primary one, at most ``reach`` up, with someone
    ``refusal`` lets decide (it answers a gap reason for a member who may not).
    ``former_seat`` is where to start when the holder has no primary seat on the chart
    (their most recent primary holding): a deactivated holder's task climbs from it."""
    seat = chart.primary.get(holder, former_seat)
    if seat is None or seat not in chart.seats:
        return Gap(GapReason.NO_PRIMARY_POSITION, member_id=holder)
    if reach <= 0:
        return Gap(GapReason.ESCALATION_BOUND, position_id=seat)
    chain = chart.chain_above(seat)
    if not chain:
        return Gap(GapReason.ABOVE_ROOT, position_id=seat)
    first: Gap | None = None
    for climbed, above in enumerate(chain[:reach], start=1):
        holders = chart.holders_of(above)
        if not holders:
            first = first or Gap(GapReason.VACANT, position_id=above)
            continue
        reasons = {m: refusal(m) for m in holders}
        left = tuple(m for m in holders if reasons[m] is None)
        if left:
            return Reached(above, climbed, left)
        # The member is named: the gap's sentence says who stood in the way.
        member, reason = next((m, r) for m, r in reasons.items() if r is not None)
        first = first or Gap(reason, position_id=above, member_id=member)
    if first is None:  # pragma: no cover - every seat walked set it or returned
        first = Gap(GapReason.ABOVE_ROOT, position_id=chain[-1])
    return first


def steps_of(graph: Graph, state: str, transitions: Iterable[str]) -> list[str]:
    """The gate states (steps) of a task's transitions, in its order."""
    steps: list[str] = []
    for key in transitions:
        found = graph.transition(state, key)
        step = graph.gate_state(found) if found is not None else None
        if step is not None and step not in steps:
            steps.append(step)
    return steps


def refusal_for(
    graph: Graph,
    state: str,
    steps: Iterable[str],
    requester: int,
    decided: Mapping[int, frozenset[str]],
    dispute_raiser: int | None = None,
) -> Callable[[int], str | None]:
    """Why a member above may not take a task in ``state`` of ``steps`` (None: they
    may), as ``authorize`` would refuse them: the requester never; whoever raised the
    dispute ``state`` is never; under exclusive approval, nobody who decided another
    step."""
    exclusive = [s for s in steps if graph.exclusive_approval and s in graph.exclusive_steps()]

    def refusal(member: int) -> str | None:
        if raised_the_dispute(graph, state, member, dispute_raiser):
            return GapReason.DISPUTE_RAISER
        if member == requester:
            return GapReason.ONLY_THE_REQUESTER
        if any(other_step(decided, member, step) is not None for step in exclusive):
            return GapReason.EXCLUSIVE_APPROVAL
        return None

    return refusal
