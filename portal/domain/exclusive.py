"""Exclusive approval — segregation of duties: when a flow turns it on, a member decides
at most one approval step of a document.

The rule, as the engine, the routing preview and the validator apply it:

- **Steps.** The forward approval steps of a route (``Graph.exclusive_steps``: the
  states entered through a target-gated transition that move a document on). A decision belongs to the step that is its gate
  state (``Graph.gate_state``): reviewing, approving, committing and paying are four
  steps; a rejection at a step belongs to that step. Steps outside the route (handling
  a dispute, source-gated exits of states no target gate enters) are left to their
  grants: the rule neither counts nor restricts them. Every step is matched against
  every other, as if one document passed them all: a flow whose branches are
  alternatives (a small-amount approver on one, a large-amount one on the other) is
  held to more than it needs.
- **What counts as having decided a step.** A decision on this document that moved it
  forward (into a state that is not rejected, cancelled or a dispute) on a grant's
  authority — any gate but the requester's — with the member as its actor or as the
  member whose authority was relied on (a delegator). Rejections do not count: a "no"
  commits nothing, and counting it would shut out of every later step the one person
  who sent a claim back for rework. Requester actions (submit, resubmit, withdraw,
  acknowledge) are nobody's step; the system has no member.
- **For the whole life of the document.** A rework cycle (rejected → draft →
  resubmitted) resets nothing: whoever reviewed the first submission may review the
  resubmission, but may never approve, commit or pay the same money.
- **Who is refused.** A member who decided another step, whichever way the authority
  reaches them (a grant, a handed-over or escalated task, a delegation): the refusal
  ``exclusive_approval`` (403). Deciding the same step again after rework is allowed.
- **Tasks.** Entering a state opens tasks only for the members of the winning band who
  are *left*: not spent on another step (decided there, or the only one who can decide
  a step still ahead). A band with nobody left is a gap with the reason
  ``exclusive_approval``, refusing the transition that would strand the document.
- **Looking ahead** (submission, each later decision, the preview, the validator): who
  decides each step is not known yet, so the steps not yet decided must be given
  distinct deciders — a matching over the steps in route order; the first step that
  cannot be given one is stranded. A member who is the only possible decider of a step
  is certainly spent there, and is shown as excluded from every other step.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.graph import Gate, Graph
from portal.domain.handover import HANDOVER_GATE

# The refusal code and the gap reason.
EXCLUSIVE_APPROVAL = "exclusive_approval"

# member id -> the approval steps (state keys) they decided on one document.
Decided = Mapping[int, frozenset[str]]


@dataclass(frozen=True)
class PriorDecision:
    """A decision already on the document, as the rule reads it (a history row)."""

    transition: str
    from_state: str
    to_state: str
    gate: str
    actor: int | None
    authority_member: int | None


def step_of(graph: Graph, transition: str, from_state: str, to_state: str, gate: str) -> str | None:
    """The approval step a decision belongs to, or None when it belongs to none."""
    found = graph.transition(from_state, transition)
    if found is not None and found.gate == gate:
        step = graph.gate_state(found)
    elif gate == Gate.TARGET:
        step = to_state
    elif gate == Gate.SOURCE:
        step = from_state
    else:
        step = None
    return step if step is not None and step in graph.exclusive_steps() else None


def counts(graph: Graph, gate: str, to_state: str) -> bool:
    """Whether a decision through ``gate`` into ``to_state`` counts as deciding a step:
    a grant's decision that moves the document forward (the deadline sweep's own rows,
    an escalation or a reassignment, and a holder's handover decide nothing)."""
    return gate not in (Gate.REQUESTER, DEADLINE_GATE, HANDOVER_GATE) and graph.moves_forward(
        to_state
    )


def steps_decided(graph: Graph, decisions: Iterable[PriorDecision]) -> dict[int, frozenset[str]]:
    """Each member's decided steps on one document, by the rule above."""
    found: dict[int, set[str]] = {}
    for d in decisions:
        if not counts(graph, d.gate, d.to_state):
            continue
        step = step_of(graph, d.transition, d.from_state, d.to_state, d.gate)
        if step is None:
            continue
        for member in {d.actor, d.authority_member}:
            if member is not None:
                found.setdefault(member, set()).add(step)
    return {m: frozenset(steps) for m, steps in found.items()}


def with_decision(decided: Decided, members: Iterable[int | None], step: str) -> Decided:
    """``decided`` with ``members`` having decided ``step`` too."""
    out = dict(decided)
    for member in members:
        if member is not None:
            out[member] = out.get(member, frozenset()) | {step}
    return out


def other_step(decided: Decided, member: int | None, step: str) -> str | None:
    """A step other than ``step`` that ``member`` decided (the first by key), if any."""
    if member is None:
        return None
    others = sorted(decided.get(member, frozenset()) - {step})
    return others[0] if others else None


# --- staffing the steps with distinct people --------------------------------------------


@dataclass(frozen=True)
class Exclusion:
    """Why a member of a step's band cannot decide it."""

    member: int
    # The step that spends them.
    step: str
    # True: they decided it already; False: nobody else can decide it.
    decided: bool


@dataclass(frozen=True)
class Staffed:
    state: str
    # Who may still decide this step, sorted.
    left: tuple[int, ...]
    excluded: tuple[Exclusion, ...]
    # Nobody can be given to this step without leaving another one empty.
    stranded: bool


def staff(steps: Sequence[tuple[str, Sequence[int]]], decided: Decided) -> tuple[Staffed, ...]:
    """Distinct deciders for ``steps`` — (state, band members) in route order — given
    who has decided which step already.

    A step someone decided already is covered by its decider (who may decide it again
    after rework, and nothing else). The steps not yet decided must be matched to
    distinct members; the first that cannot be is stranded, as is any step whose band is
    left with nobody.
    """
    done = set().union(*decided.values()) if decided else set()
    available: list[list[int]] = []
    excluded: list[list[Exclusion]] = []
    for state, members in steps:
        keep, out = [], []
        for m in members:
            elsewhere = other_step(decided, m, state)
            if elsewhere is None:
                keep.append(m)
            else:
                out.append(Exclusion(m, elsewhere, decided=True))
        available.append(keep)
        excluded.append(out)
    pending = [i for i, (state, _) in enumerate(steps) if state not in done]
    matched = _matched(pending, available)
    forced = _forced(pending, available, [state for state, _ in steps])
    staffed = []
    for i, (state, _) in enumerate(steps):
        spent = [m for m in available[i] if forced.get(m, state) != state]
        left = tuple(sorted(m for m in available[i] if m not in spent))
        out = excluded[i] + [Exclusion(m, forced[m], decided=False) for m in spent]
        stranded = not left or (i in pending and i not in matched)
        staffed.append(Staffed(state, left, tuple(out), stranded))
    return tuple(staffed)


def _matched(pending: Sequence[int], available: Sequence[Sequence[int]]) -> set[int]:
    """The pending steps a maximum matching (steps to distinct members, in route order:
    an earlier step keeps its decider when a later one cannot have one) can staff."""
    holder: dict[int, int] = {}  # member -> step

    def assign(step: int, seen: set[int]) -> bool:
        for m in available[step]:
            if m in seen:
                continue
            seen.add(m)
            if m not in holder or assign(holder[m], seen):
                holder[m] = step
                return True
        return False

    return {step for step in pending if assign(step, set())}


def _forced(
    pending: Sequence[int], available: Sequence[Sequence[int]], states: Sequence[str]
) -> dict[int, str]:
    """Members certainly spent on a pending step: its only possible decider once the
    members spent elsewhere are taken out (repeated until nothing changes; in route
    order, so of two steps only one member could decide, the earlier keeps them)."""
    forced: dict[int, str] = {}
    changed = True
    while changed:
        changed = False
        for i in pending:
            if states[i] in forced.values():
                continue
            candidates = [m for m in available[i] if m not in forced]
            if len(candidates) == 1:
                forced[candidates[0]] = states[i]
                changed = True
    return forced
