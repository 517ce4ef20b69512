"""Authority: on whose say-so an actor may take a transition of a document, or the one
refusal that says why not (DESIGN §5, step 5).

The requester alone takes requester-gated transitions. Any other gate is decided by
the winning band of its gate state's grants, resolved for this requester over the
chart as it stands — never by the requester themselves, never by whoever raised the
dispute being closed, and never by a smaller band standing in for a higher one that
found nobody. An open task assigned to the actor (handed over, escalated) carries
authority of its own. Under exclusive approval, whoever decided another approval step
of the document is refused whatever their authority (``domain.exclusive``). The system
(a state's deadline firing its automatic transition) is authorised for any gate but the
requester's, recorded ``via`` system; a member never is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from portal.domain.dispute import raised_the_dispute
from portal.domain.errors import DomainError
from portal.domain.exclusive import EXCLUSIVE_APPROVAL, other_step
from portal.domain.graph import Gate, Graph, StateRole, Transition
from portal.domain.ladder import band_for
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Resolution, resolve_all

if TYPE_CHECKING:
    from portal.domain.engine import DocumentFacts


# States entering which commits or pays money: never by the system alone.
_MONEY_ROLES = (StateRole.ACCRUAL, StateRole.PAYOUT)


class TransitionRefused(DomainError):
    """One of DESIGN §5's refusals; ``code`` says which."""


class Via:
    REQUESTER = "requester"
    GRANT = "grant"
    DELEGATION = "delegation"
    ESCALATION = "escalation"
    REASSIGNMENT = "reassignment"
    SYSTEM = "system"


@dataclass(frozen=True)
class Principal:
    """Who acts: a member (with their roles and unit code), or the system (None)."""

    member_id: int | None
    roles: frozenset[str] = frozenset()
    unit: str | None = None
    # The system itself firing a state's automatic transition when its deadline passes
    # (``domain.deadlines``): authorised for any gate but the requester's. Never a member.
    system: bool = False


@dataclass(frozen=True)
class Authority:
    via: str
    # The member whose authority was relied on (the actor, for now; the delegator later).
    authority_member: int | None
    gate_state: str | None
    winning_floor: Decimal | None
    eligible: tuple[int, ...]
    resolution: tuple[Resolution, ...]


def authorize(
    graph: Graph,
    transition: Transition,
    document: DocumentFacts,
    actor: Principal,
    chart: ChartSnapshot,
    *,
    task_transitions: Mapping[str, str] | None = None,
    locale: str = "en",
) -> Authority:
    """Step 5: on whose authority the actor may take ``transition``, or the refusal.

    ``task_transitions`` maps the transitions the actor's own open tasks on this
    document authorise to how the task came to them: a handed-over or escalated task
    carries authority of its own, recorded as that ``via``. ``locale`` names the step
    an ``exclusive_approval`` refusal is about.
    """
    if transition.gate == Gate.REQUESTER:
        if actor.member_id != document.requester:
            raise TransitionRefused("not_requester")
        return Authority(Via.REQUESTER, actor.member_id, None, None, (document.requester,), ())
    gate_state = graph.gate_state(transition)
    if gate_state is None:  # pragma: no cover - the validator refuses such a graph
        raise TransitionRefused("not_assigned")
    grants = [(i, g) for i, g in enumerate(graph.grants) if g.covers(gate_state)]
    resolutions = tuple(resolve_all(grants, document.requester, chart))
    band = band_for(resolutions, document.amount, document.requester)
    if band is not None and any(
        r.gap is not None and band.floor < r.floor <= document.amount for r in resolutions
    ):
        # A grant that should decide this amount found nobody: the smaller band below it
        # must not decide in its place (no fallback downward; ``route_step`` agrees).
        band = None
    eligible = band.members if band else ()
    floor = band.floor if band else None
    if actor.system and actor.member_id is None:
        # The flow's own deadline decides — but only what a person of the step could
        # (a band covers the amount) and never a move of money, whatever a graph says
        # (the validator refuses such a deadline too): recorded as the system, with the
        # step's eligible set as it stood.
        if band is None:
            raise TransitionRefused("no_band_covers_amount", amount=str(document.amount))
        target = graph.state(transition.to_state)
        if transition.reverses or (target is not None and target.role in _MONEY_ROLES):
            raise TransitionRefused("automatic_money_move")
        left = _without_spent(graph, gate_state, document, eligible)
        return Authority(Via.SYSTEM, None, gate_state, floor, left, resolutions)
    if raised_the_dispute(graph, transition.from_state, actor.member_id, document.dispute_raiser):
        raise TransitionRefused("dispute_raiser")
    if actor.member_id is not None and actor.member_id == document.requester:
        raise TransitionRefused("self_approval")
    via = Via.GRANT if actor.member_id in eligible else None
    via = via or (task_transitions or {}).get(transition.key)
    if via is not None:
        _check_exclusive(graph, gate_state, document, actor, locale)
        # What the decision records as the eligible set: without whoever the rule refuses.
        left = _without_spent(graph, gate_state, document, eligible)
        return Authority(via, actor.member_id, gate_state, floor, left, resolutions)
    if band is None:
        raise TransitionRefused("no_band_covers_amount", amount=str(document.amount))
    raise TransitionRefused("not_assigned")


def _without_spent(
    graph: Graph, step: str, document: DocumentFacts, eligible: tuple[int, ...]
) -> tuple[int, ...]:
    if not graph.exclusive_approval or not document.decided:
        return eligible
    return tuple(m for m in eligible if other_step(document.decided, m, step) is None)


def _check_exclusive(
    graph: Graph, step: str, document: DocumentFacts, actor: Principal, locale: str
) -> None:
    """Under exclusive approval, a member who decided another approval step of this
    document decides no other (``domain.exclusive``)."""
    if not graph.exclusive_approval or step not in graph.exclusive_steps():
        return
    spent_on = other_step(document.decided, actor.member_id, step)
    if spent_on is not None:
        raise TransitionRefused(EXCLUSIVE_APPROVAL, step=graph.state_label(spent_on, locale))
