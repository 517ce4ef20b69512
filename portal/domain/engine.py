"""The transition engine's rules, pure: may this actor take this transition of this
document now, on whose authority, and what follows — or which refusal, with its code.

DESIGN §5, in order: the state the client saw must be the current one (409
``stale_state``); the transition must leave it (409 ``transition_not_allowed``); a
required comment must be there (400 ``comment_required``); the guard must hold (422
``guard_failed`` with its declared message); the actor must have authority (403 with
one of ``not_requester``, ``not_assigned``, ``self_approval``, ``dispute_raiser``,
``no_band_covers_amount``). Then the next state's tasks are planned — or the whole
transition is refused naming the gap that would strand the document (422
``route_has_gap``); leaving the draft state checks the whole route the same way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from portal.domain import guards
from portal.domain.errors import DomainError
from portal.domain.graph import (
    CommentPolicy,
    Gate,
    Graph,
    StateRole,
    Transition,
    duration_minutes,
)
from portal.domain.ladder import band_for
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Gap, Resolution, resolve_all
from portal.domain.routing import route, route_step

GENESIS_HASH = "0" * 64


class Via:
    REQUESTER = "requester"
    GRANT = "grant"
    DELEGATION = "delegation"
    ESCALATION = "escalation"
    REASSIGNMENT = "reassignment"
    SYSTEM = "system"


class TransitionRefused(DomainError):
    """One of DESIGN §5's refusals; ``code`` says which."""


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


@dataclass(frozen=True)
class Principal:
    """Who acts: a member (with their roles and unit code), or the system (None)."""

    member_id: int | None
    roles: frozenset[str] = frozenset()
    unit: str | None = None


@dataclass(frozen=True)
class Authority:
    via: str
    # The member whose authority was relied on (the actor, for now; the delegator later).
    authority_member: int | None
    gate_state: str | None
    winning_floor: Decimal | None
    eligible: tuple[int, ...]
    resolution: tuple[Resolution, ...]


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


class Posting:
    ACCRUAL = "accrual"
    PAYOUT = "payout"
    REVERSAL = "reversal"


# --- the checks, in DESIGN §5's order ----------------------------------------------------


def find_transition(
    graph: Graph, document: DocumentFacts, key: str, seen_state: str, comment: str
) -> Transition:
    """Steps 2 and 3: the state the client saw, the transition, the comment."""
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


def authorize(
    graph: Graph,
    transition: Transition,
    document: DocumentFacts,
    actor: Principal,
    chart: ChartSnapshot,
    *,
    task_transitions: Mapping[str, str] | None = None,
) -> Authority:
    """Step 5: on whose authority the actor may take ``transition``, or the refusal.

    ``task_transitions`` maps the transitions the actor's own open tasks on this
    document authorise to how the task came to them: a handed-over or escalated task
    carries authority of its own, recorded as that ``via``.
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
    source = graph.state(transition.from_state)
    if (
        source is not None
        and source.role == StateRole.DISPUTE
        and actor.member_id is not None
        and actor.member_id == document.dispute_raiser
    ):
        raise TransitionRefused("dispute_raiser")
    if actor.member_id is not None and actor.member_id == document.requester:
        raise TransitionRefused("self_approval")
    if actor.member_id in eligible:
        return Authority(Via.GRANT, actor.member_id, gate_state, floor, eligible, resolutions)
    task_via = (task_transitions or {}).get(transition.key)
    if task_via is not None:
        return Authority(task_via, actor.member_id, gate_state, floor, eligible, resolutions)
    if band is None:
        raise TransitionRefused("no_band_covers_amount", amount=str(document.amount))
    raise TransitionRefused("not_assigned")


# --- what follows ------------------------------------------------------------------------


def _refuse_gap(state: str, gap: Gap) -> TransitionRefused:
    return TransitionRefused("route_has_gap", state=state, **gap.to_json())


def check_route(graph: Graph, document: DocumentFacts, chart: ChartSnapshot) -> None:
    """Submitting (leaving the draft state) needs every approval step staffed."""
    found = route(graph, document.requester, document.amount, chart)
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
    that someone other than the requester takes, the winning band's members. A step
    nobody could decide refuses the transition that would strand the document there."""
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
    plans = []
    for gate_state, keys in by_gate.items():
        step = route_step(graph, gate_state, document.requester, document.amount, chart)
        if step.gaps:
            raise _refuse_gap(gate_state, step.gaps[0])
        assert step.band is not None  # a step without gaps has a staffed band
        plans.append(
            TaskPlan(state, gate_state, step.band.members, tuple(keys), step.band.floor, due_at)
        )
    return plans


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


# --- the hash chain ----------------------------------------------------------------------


def decision_hash(prev_hash: str, record: Mapping[str, Any]) -> str:
    """SHA-256 over the previous hash and the decision's canonical JSON: changing any
    recorded value, or the order, breaks every hash after it."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()
