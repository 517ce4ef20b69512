"""The transition engine's rules, pure: may this actor take this transition of this
document now, on whose authority, and what follows — or which refusal, with its code.

DESIGN §5, in order: the state the client saw must be the current one (409
``stale_state``); the transition must leave it (409 ``transition_not_allowed``); a
required comment must be there (422 ``comment_required``, like every field
error); the guard must hold (422
``guard_failed`` with its declared message); the actor must have authority (403 with
one of ``not_requester``, ``not_assigned``, ``self_approval``, ``dispute_raiser``,
``no_band_covers_amount``, ``exclusive_approval``). Then the next state's tasks are
planned — or the whole transition is refused naming the gap that would strand the
document (422 ``route_has_gap``); leaving the draft state checks the whole route the
same way.

Under exclusive approval (a flow setting; the rule is ``domain.exclusive``'s) the
document's facts carry who decided which approval step (``DocumentFacts.decided``, read
from its history by the caller, only when the flow has the setting): a member who
decided one step is refused any other, gets no task for it, and a decision that would
leave a step ahead with nobody to decide it is refused naming that step
(``route_has_gap`` with the reason ``exclusive_approval``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from portal.domain import guards

# The pipeline's one facade: authority's names are re-exported for its callers.
from portal.domain.authority import Authority as Authority
from portal.domain.authority import Principal
from portal.domain.authority import TransitionRefused as TransitionRefused
from portal.domain.authority import Via as Via
from portal.domain.authority import authorize as authorize
from portal.domain.durations import duration_minutes
from portal.domain.exclusive import counts, with_decision
from portal.domain.graph import (
    CommentPolicy,
    Graph,
    StateRole,
    Transition,
)
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Gap, GapReason, Resolution
from portal.domain.routing import Step, route, route_step


@dataclass(frozen=True)
class DocumentFacts:
    """What the rules need to know about a document."""

    id: int
    reference: str
    kind: str
    title: str
    amount: Decimal
    currency: str
    requester: int
    state: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    # Who raised the dispute the document is in, if it is in one.
    dispute_raiser: int | None = None
    # Under exclusive approval: member -> the approval steps they decided on this
    # document (``exclusive.steps_decided``); empty when the flow lacks the setting.
    decided: Mapping[int, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskPlan:
    """Tasks to open when the document enters ``state``: one per assignee."""

    state: str
    gate_state: str
    assignees: tuple[int, ...]
    # The exits of ``state`` these tasks authorise.
    transitions: tuple[str, ...]
    band_floor: Decimal
    due_at: datetime | None
    # Assignees the step reached only by escalating past a gap (a vacant seat), with
    # that gap: their task is opened ``via`` escalation and they are told why.
    escalated: tuple[tuple[int, Gap], ...] = ()


def escalations_of(
    band_grants: tuple[int, ...], resolutions: Sequence[Resolution]
) -> dict[int, Gap]:
    """Which members of a band came to it only through an escalation, and past what:
    a member whom some winning grant names directly is there in their own right."""
    winning = [r for r in resolutions if r.index in band_grants and r.members]
    direct = {m for r in winning if r.escalated_past is None for m in r.members}
    found: dict[int, Gap] = {}
    for r in winning:
        if r.escalated_past is not None:
            for m in r.members:
                if m not in direct:
                    found.setdefault(m, r.escalated_past)
    return found


class Posting:
    ACCRUAL = "accrual"
    PAYOUT = "payout"
    REVERSAL = "reversal"


# --- the checks, in DESIGN §5's order ----------------------------------------------------


def require_transition(
    graph: Graph, document: DocumentFacts, key: str, seen_state: str, comment: str
) -> Transition:
    """Steps 2 and 3: the transition the request names, refused unless the client saw
    the current state, the transition leaves it, and a required comment is there."""
    if seen_state != document.state:
        raise TransitionRefused("stale_state", seen=seen_state[:63], current=document.state)
    transition = graph.transition(document.state, key)
    if transition is None:
        raise TransitionRefused("transition_not_allowed", transition=key[:63], state=document.state)
    if transition.comment == CommentPolicy.REQUIRED and not comment.strip():
        raise TransitionRefused("comment_required", field="comment")
    return transition


def guard_facts(document: DocumentFacts, principal: Principal) -> dict[str, object]:
    """The flat facts a guard reads (``guards.evaluate``)."""
    facts: dict[str, object] = {
        "document.amount": document.amount,
        "document.currency": document.currency,
        "document.kind": document.kind,
        "document.title": document.title,
        "document.requester": document.requester,
        "principal.member": principal.member_id,
        "principal.roles": tuple(sorted(principal.roles)),
        "principal.unit": principal.unit,
    }
    for key, value in document.fields.items():
        facts[f"document.fields.{key}"] = Decimal(str(value)) if isinstance(value, float) else value
    return facts


def check_guard(
    transition: Transition, document: DocumentFacts, principal: Principal, *, locale: str = "en"
) -> None:
    """Step 4. A guard that cannot be evaluated fails closed, like a false one; the
    refusal carries the flow's own message in the reader's language."""
    if transition.guard is None:
        return
    try:
        parsed = guards.parse(transition.guard.expression)
        holds = guards.is_satisfied(parsed, guard_facts(document, principal))
    except (guards.GuardSyntaxError, guards.GuardEvalError):
        holds = False
    if not holds:
        raise TransitionRefused("guard_failed", message=transition.guard.message.text(locale))


# --- what follows ------------------------------------------------------------------------


def _refuse_gap(state: str, gap: Gap) -> TransitionRefused:
    return TransitionRefused("route_has_gap", state=state, **gap.to_json())


def check_route(graph: Graph, document: DocumentFacts, chart: ChartSnapshot) -> None:
    """Submitting (leaving the draft state) needs every approval step staffed — under
    exclusive approval, each by someone of its own."""
    found = route(graph, document.requester, document.amount, chart, document.decided)
    first = found.first_gap()
    if first is not None:
        step, gap = first
        raise _refuse_gap(step.state, gap)


def plan_tasks(
    graph: Graph,
    state: str,
    document: DocumentFacts,
    chart: ChartSnapshot,
    now: datetime,
) -> list[TaskPlan]:
    """The tasks entering ``state`` opens: for each distinct gate state among its exits
    that someone other than the requester takes, the winning band's members (under
    exclusive approval, those left: ``document.decided`` must include the decision
    being made). A step nobody could decide refuses the transition that would strand
    the document there — as does, under exclusive approval, a step not yet decided that
    would be left with nobody of its own."""
    target = graph.state(state)
    due_at = None
    if target is not None and target.deadline is not None:
        minutes = duration_minutes(target.deadline.after)
        if minutes is not None:
            due_at = now + timedelta(minutes=minutes)
    by_gate: dict[str, list[str]] = {}
    for t in graph.transitions_from(state):
        gate_state = graph.gate_state(t)
        if gate_state is not None:
            by_gate.setdefault(gate_state, []).append(t.key)
    exclusive = _exclusive_steps(graph, by_gate, document, chart)
    plans = []
    for gate_state, keys in by_gate.items():
        step = exclusive.get(gate_state) or route_step(
            graph, gate_state, document.requester, document.amount, chart
        )
        if step.gaps:
            raise _refuse_gap(gate_state, step.gaps[0])
        assert step.band is not None  # a step without gaps has a staffed band
        escalated = escalations_of(step.band.grants, step.resolutions)
        plans.append(
            TaskPlan(
                state,
                gate_state,
                step.eligible,
                tuple(keys),
                step.band.floor,
                due_at,
                tuple((m, escalated[m]) for m in step.eligible if m in escalated),
            )
        )
    return plans


def _exclusive_steps(
    graph: Graph, by_gate: Mapping[str, object], document: DocumentFacts, chart: ChartSnapshot
) -> dict[str, Step]:
    """Under exclusive approval, when tasks open on an approval step: the route's steps
    staffed with distinct people, by state. A step not yet decided that is stranded
    only by the rule refuses now, before anyone is spent on the step at hand."""
    if not graph.exclusive_approval or not any(g in graph.exclusive_steps() for g in by_gate):
        return {}
    found = route(graph, document.requester, document.amount, chart, document.decided)
    done = set().union(*document.decided.values()) if document.decided else set()
    for step in found.steps:
        if step.state not in by_gate and step.state not in done:
            gap = next((g for g in step.gaps if g.reason == GapReason.EXCLUSIVE_APPROVAL), None)
            if gap is not None:
                raise _refuse_gap(step.state, gap)
    return {step.state: step for step in found.steps}


def posting_of(graph: Graph, transition: Transition) -> str | None:
    """The posting event taking ``transition`` causes, if any."""
    target = graph.state(transition.to_state)
    if transition.reverses:
        return Posting.REVERSAL
    if target is not None and target.role == StateRole.ACCRUAL:
        return Posting.ACCRUAL
    if target is not None and target.role == StateRole.PAYOUT:
        return Posting.PAYOUT
    return None


# --- all of it at once ---------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What taking a transition does, decided before anything is written."""

    transition: Transition
    authority: Authority
    # The tasks the new state opens (the old state's all end: the actor's completes).
    tasks: tuple[TaskPlan, ...]
    # accrual, payout, reversal — or None.
    posting: str | None
    # Who raised the dispute the document enters, if it enters one.
    dispute_raiser: int | None


def decide(
    graph: Graph,
    document: DocumentFacts,
    key: str,
    *,
    seen_state: str,
    comment: str,
    principal: Principal,
    chart: ChartSnapshot,
    now: datetime,
    task_transitions: Mapping[str, str] | None = None,
    locale: str = "en",
) -> Plan:
    """DESIGN §5 steps 2–6 as one pure decision: the plan to apply, or the first
    ``TransitionRefused`` in the pipeline's order."""
    transition = require_transition(graph, document, key, seen_state, comment)
    check_guard(transition, document, principal, locale=locale)
    authority = authorize(
        graph,
        transition,
        document,
        principal,
        chart,
        task_transitions=task_transitions,
        locale=locale,
    )
    source = graph.state(transition.from_state)
    target = graph.state(transition.to_state)
    if source is not None and source.role == StateRole.DRAFT:
        check_route(graph, document, chart)
    after = _after_decision(graph, document, transition, authority, principal)
    tasks = tuple(plan_tasks(graph, transition.to_state, after, chart, now))
    entering_dispute = target is not None and target.role == StateRole.DISPUTE
    return Plan(
        transition,
        authority,
        tasks,
        posting_of(graph, transition),
        principal.member_id if entering_dispute else None,
    )


def _after_decision(
    graph: Graph,
    document: DocumentFacts,
    transition: Transition,
    authority: Authority,
    principal: Principal,
) -> DocumentFacts:
    """The document's facts once this decision is made: under exclusive approval, its
    deciders have decided its step (what the next step's tasks are planned with)."""
    step = authority.gate_state
    if (
        not graph.exclusive_approval
        or step is None
        or step not in graph.exclusive_steps()
        or not counts(graph, transition.gate, transition.to_state)
    ):
        return document
    deciders = (principal.member_id, authority.authority_member)
    return replace(document, decided=with_decision(document.decided, deciders, step))
