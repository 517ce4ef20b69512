"""A state's deadline as a schedule of effects: what happens to a task, and when.

Durations are exact (``Nd`` is N × 24 hours from the moment the task opened); each
effect is named by (kind, level) so the sweep can record it once; a reminder the sweep
reaches late is superseded by what it missed, never sent late.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from portal.domain.deadlines import (
    MAX_REMINDERS,
    EffectKind,
    due_at,
    due_now,
    escalation_allowed,
    escalation_bound,
    next_sweep_at,
    schedule,
    skipped,
)
from portal.domain.graph import DEFAULT_MAX_ESCALATION_LEVELS, BreachAction, Deadline
from portal.flows.seeded import expense_claim, leave_request, purchase_request

OPENED = datetime(2026, 12, 4, 9, 30, tzinfo=UTC)
HOUR = timedelta(hours=1)


def _state(graph, key, **changes):
    return replace(graph.state(key), **changes)


def test_a_deadline_of_days_is_that_many_times_24_hours_from_opening():
    state = _state(
        leave_request("MYR"), "manager_review", deadline=Deadline("3d", BreachAction.REMIND)
    )
    assert due_at(state, OPENED) == OPENED + timedelta(hours=72)
    assert due_at(_state(leave_request("MYR"), "manager_review", deadline=None), OPENED) is None
    assert due_at(None, OPENED) is None


def test_a_remind_deadline_reminds_before_at_and_after_the_deadline_a_bounded_number_of_times():
    state = _state(
        leave_request("MYR"), "manager_review", deadline=Deadline("2d", BreachAction.REMIND)
    )
    due = OPENED + timedelta(days=2)
    effects = schedule(state, OPENED, due, 4 * HOUR)
    assert [(e.kind, e.level, e.at) for e in effects] == [
        (EffectKind.DUE_SOON, 1, due - 4 * HOUR),
        *((EffectKind.BREACH, n, due + timedelta(days=2) * (n - 1)) for n in range(1, 4)),
    ]
    assert MAX_REMINDERS == 3
    assert all(e.action == BreachAction.REMIND for e in effects)


def test_no_reminder_before_the_deadline_when_the_task_opened_inside_the_lead_window():
    state = _state(
        leave_request("MYR"), "manager_review", deadline=Deadline("3h", BreachAction.REMIND)
    )
    due = OPENED + 3 * HOUR
    kinds = [e.kind for e in schedule(state, OPENED, due, 2 * HOUR)]
    assert kinds[0] == EffectKind.DUE_SOON
    kinds = [e.kind for e in schedule(state, OPENED, due, 4 * HOUR)]
    assert EffectKind.DUE_SOON not in kinds
    assert EffectKind.DUE_SOON not in [e.kind for e in schedule(state, OPENED, due, None)]


def test_escalate_reassign_and_auto_act_once_at_the_deadline():
    for action in (BreachAction.ESCALATE_UP, BreachAction.REASSIGN, BreachAction.AUTO):
        state = _state(purchase_request("MYR"), "submitted", deadline=Deadline("48h", action, None))
        due = OPENED + 48 * HOUR
        breaches = [e for e in schedule(state, OPENED, due, None) if e.kind == EffectKind.BREACH]
        assert [(b.level, b.at, b.action) for b in breaches] == [(1, due, action)]


def test_lazy_escalation_is_due_when_the_task_has_stood_untouched_that_long():
    state = _state(purchase_request("MYR"), "submitted", deadline=None, escalate_after="2d")
    [effect] = schedule(state, OPENED, None, 4 * HOUR)
    assert (effect.kind, effect.level, effect.action) == (
        EffectKind.ESCALATE_AFTER,
        1,
        BreachAction.ESCALATE_UP,
    )
    assert effect.at == OPENED + timedelta(days=2)
    assert schedule(replace(state, escalate_after=None), OPENED, None, None) == []


def test_what_is_due_now_leaves_out_what_is_recorded_and_what_is_not_yet_due():
    state = _state(
        leave_request("MYR"), "manager_review", deadline=Deadline("2d", BreachAction.REMIND)
    )
    due = OPENED + timedelta(days=2)
    effects = schedule(state, OPENED, due, 4 * HOUR)
    assert due_now(effects, (), OPENED + HOUR) == []
    [soon] = due_now(effects, (), due - HOUR)
    assert soon.key == (EffectKind.DUE_SOON, 1)
    assert due_now(effects, [soon.key], due - HOUR) == []
    assert next_sweep_at(effects, ()) == due - 4 * HOUR
    assert next_sweep_at(effects, [soon.key]) == due
    every = [e.key for e in effects]
    assert next_sweep_at(effects, every) is None


def test_a_late_sweep_sends_the_breach_not_the_reminder_it_missed_and_one_reminder_not_three():
    state = _state(
        leave_request("MYR"), "manager_review", deadline=Deadline("1d", BreachAction.REMIND)
    )
    due = OPENED + timedelta(days=1)
    effects = schedule(state, OPENED, due, 4 * HOUR)
    # Just after the deadline: the breach reminder alone; the one before is superseded.
    [breach] = due_now(effects, (), due + HOUR)
    assert breach.key == (EffectKind.BREACH, 1)
    assert [e.key for e in skipped(effects, (), due + HOUR)] == [(EffectKind.DUE_SOON, 1)]
    # Nobody swept for a week: one reminder (the latest), the rest recorded as skipped.
    late = due + timedelta(days=7)
    [latest] = due_now(effects, (), late)
    assert latest.key == (EffectKind.BREACH, MAX_REMINDERS)
    assert {e.key for e in skipped(effects, (), late)} == {
        (EffectKind.DUE_SOON, 1),
        (EffectKind.BREACH, 1),
        (EffectKind.BREACH, 2),
    }


def test_escalation_is_bounded_by_the_largest_bound_of_the_steps_grants():
    graph = purchase_request("MYR")
    assert escalation_bound(graph, "submitted") == DEFAULT_MAX_ESCALATION_LEVELS
    raised = replace(
        graph,
        grants=tuple(
            replace(g, max_escalation_levels=4) if i == 0 else g for i, g in enumerate(graph.grants)
        ),
    )
    assert escalation_bound(raised, "submitted") == 4
    assert escalation_allowed(0, 2) and escalation_allowed(1, 2)
    assert not escalation_allowed(2, 2)


def test_a_terminal_state_has_no_bound_of_its_own_but_the_default():
    graph = expense_claim("MYR")
    terminal = next(s.key for s in graph.states if s.terminal)
    assert escalation_bound(graph, terminal) == DEFAULT_MAX_ESCALATION_LEVELS
