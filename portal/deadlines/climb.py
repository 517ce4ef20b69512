"""Who is next above a task's holder: the walk up the org chart that an escalation and a
reassignment take, pure over the chart of the day.

The walk starts at the holder's primary seat and climbs at most ``reach`` seats (the
grants' ``max_escalation_levels`` less the seats the task climbed already). A vacant
seat is passed; so is a seat whose holders may not decide the step (the requester, or
under exclusive approval whoever decided another step). The first seat with someone
who may is reached. Nobody in reach is a gap, with the reason for the first seat that
stood in the way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from portal.domain.exclusive import other_step
from portal.domain.graph import Graph
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Gap, GapReason

# The gap reason when a task has climbed as far as the grants allow.
ESCALATION_BOUND = "escalation_bound"


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
) -> Reached | Gap:
    """The next seat above ``holder``'s primary one, at most ``reach`` up, with someone
    ``refusal`` lets decide (it answers a gap reason for a member who may not)."""
    seat = chart.primary.get(holder)
    if seat is None or seat not in chart.seats:
        return Gap(GapReason.NO_PRIMARY_POSITION, member_id=holder)
    if reach <= 0:
        return Gap(ESCALATION_BOUND, position_id=seat)
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
        reason = next(r for r in reasons.values() if r is not None)
        first = first or Gap(reason, position_id=above)
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
    graph: Graph, steps: Iterable[str], requester: int, decided: Mapping[int, frozenset[str]]
) -> Callable[[int], str | None]:
    """Why a member above may not take a task of ``steps`` (None: they may): the
    requester never; under exclusive approval, nobody who decided another step."""
    exclusive = [s for s in steps if graph.exclusive_approval and s in graph.exclusive_steps()]

    def refusal(member: int) -> str | None:
        if member == requester:
            return GapReason.ONLY_THE_REQUESTER
        if any(other_step(decided, member, step) is not None for step in exclusive):
            return GapReason.EXCLUSIVE_APPROVAL
        return None

    return refusal
