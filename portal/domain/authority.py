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

A delegate with an active cover (``domain.delegation``) may act where the delegator
could — the delegator's band, or the delegator's own open task — recorded ``via``
delegation with the delegator as the authority relied on, when they have no authority
of their own (their own comes first, and is what the decision names). The self-approval,
dispute-raiser and exclusive-approval rules apply to both people. A task that was handed
over to the actor moves the work, not authority: it authorises nothing by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from portal.domain.delegation import Cover
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
    # A task handed to its holder by another (``documents.handover``): the work is
    # theirs, but the authority must be their own (never a decision's ``via``).
    HANDOVER = "handover"


@dataclass(frozen=True)
class Principal:
    """Who acts: a member (with their roles and unit code), or the system (None)."""

    member_id: int | None
    roles: frozenset[str] = frozenset()
    unit: str | None = None
    # The system itself firing a state's automatic transition when its deadline passes
    # (``domain.deadlines``): authorised for any gate but the requester's. Never a member.
    system: bool = False
    # Delegations to this member that touch the document at hand: active ones lend the
    # delegator's authority; lapsed ones only explain a refusal.
    covers: tuple[Cover, ...] = ()
    # Members whose authority would reach this one only through a second hop (they
    # cover someone who covers this member): never lent on.
    chained: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Authority:
    via: str
    # The member whose authority was relied on: the actor, or the delegator.
    authority_member: int | None
    gate_state: str | None
    winning_floor: Decimal | None
    eligible: tuple[int, ...]
    resolution: tuple[Resolution, ...]
    # The cover the actor acted under (``via`` delegation), else None.
    delegation_id: int | None = None


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
    via = via or _task_authority(task_transitions, transition.key)
    # What the decision records as the eligible set: without whoever the rule refuses.
    left = _without_spent(graph, gate_state, document, eligible)
    if via is not None:
        _check_exclusive(graph, gate_state, document, actor.member_id, locale)
        return Authority(via, actor.member_id, gate_state, floor, left, resolutions)
    lent = _lent(graph, transition, gate_state, document, actor, eligible, locale)
    if lent is not None:
        return Authority(
            Via.DELEGATION,
            lent.delegator,
            gate_state,
            floor,
            left,
            resolutions,
            delegation_id=lent.delegation_id,
        )
    if any(c.active and c.delegator == document.requester for c in actor.covers):
        # The delegator's own document: their authority never reaches it (resolution
        # leaves the requester out of every band, so the cover found nothing above),
        # and that is what to say rather than "not assigned".
        raise TransitionRefused("delegation_own_document")
    if any(c.delegator in eligible for c in actor.covers) or _lent_task(actor, transition):
        raise TransitionRefused("delegation_not_active")
    if actor.chained & set(eligible):
        raise TransitionRefused("delegation_chain")
    if band is None:
        raise TransitionRefused("no_band_covers_amount", amount=str(document.amount))
    raise TransitionRefused("not_assigned")


def _task_authority(task_transitions: Mapping[str, str] | None, key: str) -> str | None:
    """How the actor's own open task authorises ``key``; a handed-over task does not."""
    via = (task_transitions or {}).get(key)
    return None if via == Via.HANDOVER else via


def _lent_task(actor: Principal, transition: Transition) -> bool:
    return any(_task_authority(c.tasks, transition.key) for c in actor.covers)


def _lent(
    graph: Graph,
    transition: Transition,
    gate_state: str,
    document: DocumentFacts,
    actor: Principal,
    eligible: tuple[int, ...],
    locale: str,
) -> Cover | None:
    """The active cover under which the actor may take ``transition`` on the
    delegator's authority (their band, or their own open task), or None; a cover that
    would lend it but for a rule is that rule's refusal — once no other cover lends it
    (a delegate of two acts on whichever delegator the rules leave)."""
    refused: TransitionRefused | None = None
    for cover in actor.covers:
        if not cover.active:
            continue
        if cover.delegator not in eligible and not _task_authority(cover.tasks, transition.key):
            continue
        try:
            # Standing in for the requester, the delegate borrows nobody's authority
            # for the requester's own document — not even another delegator's.
            if any(c.active and c.delegator == document.requester for c in actor.covers):
                raise TransitionRefused("delegation_own_document")
            if raised_the_dispute(
                graph, transition.from_state, cover.delegator, document.dispute_raiser
            ):
                raise TransitionRefused("dispute_raiser")
            _check_exclusive(graph, gate_state, document, cover.delegator, locale)
            _check_exclusive(graph, gate_state, document, actor.member_id, locale)
        except TransitionRefused as refusal:
            refused = refused or refusal
            continue
        return cover
    if refused is not None:
        raise refused
    return None


def _without_spent(
    graph: Graph, step: str, document: DocumentFacts, eligible: tuple[int, ...]
) -> tuple[int, ...]:
    if not graph.exclusive_approval or not document.decided:
        return eligible
    return tuple(m for m in eligible if other_step(document.decided, m, step) is None)


def _check_exclusive(
    graph: Graph, step: str, document: DocumentFacts, member: int | None, locale: str
) -> None:
    """Under exclusive approval, a member who decided another approval step of this
    document decides no other (``domain.exclusive``)."""
    if not graph.exclusive_approval or step not in graph.exclusive_steps():
        return
    spent_on = other_step(document.decided, member, step)
    if spent_on is not None:
        raise TransitionRefused(EXCLUSIVE_APPROVAL, step=graph.state_label(spent_on, locale))
