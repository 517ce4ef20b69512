"""What a state's deadline does to a task, and when: the deadline sweep's rules, pure.

A state may carry a ``deadline`` (a duration and what happens on breach) and an
``escalate_after`` (lazy escalation). Each open task of such a state has a schedule of
effects, each named by (kind, level) and due at a moment:

- ``due_soon`` #1: a reminder ``lead`` before the deadline (the organization's lead
  time), only when that moment falls after the task was opened — a task opened inside
  the window was just announced;
- ``breach`` #1 at the deadline: the state's ``on_breach`` (``remind``, ``escalate_up``,
  ``reassign`` or ``auto``); a ``remind`` deadline reminds again every period after
  that, at most ``MAX_REMINDERS`` times in all;
- ``escalate_after`` #1 when the task has stood that long untouched: the next filled
  seat above its holder is brought in (as ``escalate_up`` does).

Durations are exact: ``Nd`` is N × 24 hours from the moment the task opened, whatever
the calendar or the organization's zone says; business days are not counted. A task
opened by an escalation or a reassignment carries a schedule of its own from the moment
it opened, so a chain climbs one seat per period, bounded by the grants'
``max_escalation_levels`` (``escalation_allowed``).

Every effect happens once: the sweep records (task, kind, level) under a unique key
and asks only for what is not yet recorded (``due_now``, ``next_sweep_at``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from portal.domain.durations import duration_minutes
from portal.domain.graph import DEFAULT_MAX_ESCALATION_LEVELS, BreachAction, Graph, State


class EffectKind:
    DUE_SOON = "due_soon"
    BREACH = "breach"
    ESCALATE_AFTER = "escalate_after"
    ALL = (DUE_SOON, BREACH, ESCALATE_AFTER)


class Outcome:
    """What the sweep records beside the action when it could not do it."""

    # Nobody found above within reach (or the bound was reached): admins are told.
    GAP = "gap"
    # The automatic transition was refused (a guard, a gap on the way on).
    REFUSED = "refused"


# A ``remind`` deadline reminds at the deadline and then once a period, this many in all.
MAX_REMINDERS = 3

# The gate of the history rows the sweep writes for its own acts (an escalation, a
# reassignment, a gap): no gate of the flow, nobody's decision of a step.
DEADLINE_GATE = "deadline"


@dataclass(frozen=True)
class Effect:
    kind: str
    level: int
    at: datetime
    # remind, escalate_up, reassign or auto.
    action: str

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.level)


def _period(text: str | None) -> timedelta | None:
    minutes = duration_minutes(text) if text else None
    return timedelta(minutes=minutes) if minutes else None


def due_at(state: State | None, opened_at: datetime) -> datetime | None:
    """When a task opened at ``opened_at`` in ``state`` is due (None: no deadline)."""
    period = _period(state.deadline.after) if state is not None and state.deadline else None
    return opened_at + period if period is not None else None


def schedule(
    state: State | None, opened_at: datetime, due: datetime | None, lead: timedelta | None
) -> list[Effect]:
    """Every effect a task of ``state`` opened at ``opened_at`` (due at ``due``) will
    have, in time order."""
    if state is None:
        return []
    effects: list[Effect] = []
    deadline = state.deadline
    period = _period(deadline.after) if deadline is not None else None
    if deadline is not None and due is not None:
        if lead and due - lead > opened_at:
            effects.append(Effect(EffectKind.DUE_SOON, 1, due - lead, BreachAction.REMIND))
        repeats = MAX_REMINDERS if deadline.on_breach == BreachAction.REMIND and period else 1
        for level in range(1, repeats + 1):
            at = due + (period or timedelta()) * (level - 1)
            effects.append(Effect(EffectKind.BREACH, level, at, deadline.on_breach))
    lazy = _period(state.escalate_after)
    if lazy is not None:
        effects.append(
            Effect(EffectKind.ESCALATE_AFTER, 1, opened_at + lazy, BreachAction.ESCALATE_UP)
        )
    return sorted(effects, key=lambda e: (e.at, EffectKind.ALL.index(e.kind), e.level))


def due_now(
    effects: Iterable[Effect], done: Iterable[tuple[str, int]], now: datetime
) -> list[Effect]:
    """The effects that are due and not yet recorded, in time order. A reminder before
    the deadline that the sweep reaches only after the breach is superseded by it (the
    breach tells the holder more), and several reminders of one breach that fell due
    while nobody swept are sent as one: the latest."""
    recorded = set(done)
    pending = [e for e in effects if e.at <= now and e.key not in recorded]
    if any(e.kind == EffectKind.BREACH for e in pending):
        pending = [e for e in pending if e.kind != EffectKind.DUE_SOON]
    reminders = [
        e for e in pending if e.kind == EffectKind.BREACH and e.action == BreachAction.REMIND
    ]
    if len(reminders) > 1:
        pending = [e for e in pending if e not in reminders[:-1]]
    return pending


def skipped(
    effects: Iterable[Effect], done: Iterable[tuple[str, int]], now: datetime
) -> list[Effect]:
    """Due effects ``due_now`` leaves out (superseded): recorded as done all the same,
    so they are never sent late."""
    chosen = set(due_now(list(effects), done, now))
    recorded = set(done)
    return [e for e in effects if e.at <= now and e.key not in recorded and e not in chosen]


def next_sweep_at(effects: Iterable[Effect], done: Iterable[tuple[str, int]]) -> datetime | None:
    """When the sweep next has something to do for the task (None: nothing more)."""
    recorded = set(done)
    pending = [e.at for e in effects if e.key not in recorded]
    return min(pending) if pending else None


def escalation_bound(graph: Graph, state_key: str) -> int:
    """How many seats above a step's own approvers its tasks may climb: the largest
    ``max_escalation_levels`` among the grants on the step's gate states."""
    gates = {graph.gate_state(t) for t in graph.transitions_from(state_key)} - {None}
    bounds = [
        DEFAULT_MAX_ESCALATION_LEVELS
        if g.max_escalation_levels is None
        else g.max_escalation_levels
        for g in graph.grants
        if any(g.covers(gate) for gate in gates if gate is not None)
    ]
    return max(bounds, default=DEFAULT_MAX_ESCALATION_LEVELS)


def escalation_allowed(level: int, bound: int) -> bool:
    """May a task opened ``level`` seats up be escalated (or reassigned) once more?"""
    return level < bound
