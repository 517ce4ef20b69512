"""Applying a document's due effects, under its row lock, in the sweep's unit of work.

Each effect is claimed by its (task, kind, level) row in ``deadline_effect``. The
effects are applied as they come; their records and the tasks' next ``sweep_at`` are
buffered and written by ``DocumentSweep.finish``, in the same unit of work, so a
duplicate key (a second sweeper that got past the document lock's check) rolls back
the whole document's work, effects included. What each action does:

- ``remind``: the holder is told again (``notify.due_soon`` before the deadline,
  ``notify.overdue`` after it).
- ``escalate_up``: the next seat above the holder (``domain.climb``) gets tasks of its
  own, the holder keeps theirs; a history row says so. Nobody in reach is a gap: a
  history row with nobody eligible and a notice to the organization's admins.
- ``reassign``: as ``escalate_up``, but the holder's task is cancelled (even when the
  seat above holds the step already: the history and the notices name them).
- ``auto``: the state's transition, taken by the system through the transition
  pipeline itself; a refusal is recorded and told to the admins, the document stays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import bindparam, insert, update

from portal.core.db import table_of
from portal.core.outbox import add_events
from portal.core.uow import UnitOfWork
from portal.deadlines.history import Climbed, append_sweep_decision
from portal.deadlines.models import DeadlineEffect
from portal.deadlines.queries import DueTask, SweptOrganization
from portal.documents.access import DocumentRecord, VisibleDocument
from portal.documents.queries.deciders import steps_decided_in
from portal.documents.transitions import (
    TASK_TABLE,
    TaskStatus,
    open_tasks,
    transition_in,
)
from portal.domain import deadlines
from portal.domain.actor import Role, SystemActor
from portal.domain.authority import Via
from portal.domain.climb import Reached, climb, refusal_for, steps_of
from portal.domain.engine import TaskPlan
from portal.domain.errors import DomainError
from portal.domain.graph import BreachAction, Graph
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import Gap, GapReason
from portal.orgchart.queries import last_primary_seat

_EFFECT = table_of(DeadlineEffect)
_MOVE_SWEEP_AT = (
    update(TASK_TABLE)
    .where(TASK_TABLE.c.org_id == bindparam("b_org"), TASK_TABLE.c.id == bindparam("b_task"))
    .values(sweep_at=bindparam("sweep_at"))
)


class Action:
    """What an effect's record says was done (beside ``BreachAction``'s own)."""

    REMIND = BreachAction.REMIND
    ESCALATE_UP = BreachAction.ESCALATE_UP
    REASSIGN = BreachAction.REASSIGN
    AUTO = BreachAction.AUTO
    GAP = deadlines.Outcome.GAP
    REFUSED = deadlines.Outcome.REFUSED
    # Due, but left out for a later one that tells more (``deadlines.skipped``).
    SUPERSEDED = "superseded"


class DocumentSweep:
    """The due effects of one locked document, applied in the caller's unit of work."""

    def __init__(
        self,
        uow: UnitOfWork,
        org: SweptOrganization,
        loaded: VisibleDocument,
        graph: Graph,
        chart: ChartSnapshot,
        now: datetime,
        open_now: Iterable[DueTask] = (),
    ) -> None:
        self.uow = uow
        self.session = uow.session
        self.org = org
        self.loaded = loaded
        self.graph = graph
        self.chart = chart
        self.now = now
        minutes = org.reminder_lead_minutes
        self.lead = timedelta(minutes=minutes) if minutes > 0 else None
        self.applied = 0
        # Set once the document left the state (an automatic transition): its tasks are
        # closed, nothing more to do.
        self.moved = False
        self._decided: Mapping[int, frozenset[str]] | None = None
        self._auto_refusal_told = False
        # Who holds each step of the document now, and the tasks closed by an effect
        # (a reassignment): kept as the effects change them, so nothing is read twice.
        self.holders: dict[str, set[int]] = {}
        for task in open_now:
            self.holders.setdefault(task.state, set()).add(task.assignee_id)
        self.closed: set[int] = set()
        # Written by ``finish``: the effects' records, and the tasks' next sweep.
        self._records: list[dict[str, Any]] = []
        self._sweep_at: list[dict[str, Any]] = []

    @property
    def doc(self) -> DocumentRecord:
        return self.loaded.doc

    # --- one task ---------------------------------------------------------------------

    def sweep_task(self, task: DueTask, done: set[tuple[str, int]]) -> None:
        """Apply the task's due effects, record the superseded ones, and move its
        ``sweep_at`` to the next moment there is work for it."""
        if self.moved:
            return
        if task.state != self.doc.state:  # pragma: no cover - a move closes its tasks
            self._set_sweep_at(task, None)
            return
        effects = deadlines.schedule(
            self.graph.state(task.state), task.created_at, task.due_at, self.lead
        )
        recorded = set(done)
        for effect in deadlines.skipped(effects, done, self.now):
            if self._once(task, effect, lambda: (Action.SUPERSEDED, {})):
                recorded.add(effect.key)
        for effect in deadlines.due_now(effects, done, self.now):
            if self.moved or task.id in self.closed:
                break
            if self._once(task, effect, partial(self._apply, task, effect)):
                self.applied += 1
            recorded.add(effect.key)
        if not self.moved and task.id not in self.closed:
            self._set_sweep_at(task, deadlines.next_sweep_at(effects, recorded))

    def _set_sweep_at(self, task: DueTask, at: datetime | None) -> None:
        self._sweep_at.append({"b_org": self.org.id, "b_task": task.id, "sweep_at": at})

    def finish(self) -> None:
        """Write what the document's effects left to record: the effects themselves and
        each task's next ``sweep_at``, in one statement each."""
        conn = self.session.connection()
        if self._records:
            conn.execute(insert(_EFFECT), self._records)
        if self._sweep_at:
            conn.execute(_MOVE_SWEEP_AT, self._sweep_at)

    def _once(
        self,
        task: DueTask,
        effect: deadlines.Effect,
        act: Callable[[], tuple[str, dict[str, Any]]],
    ) -> bool:
        """Apply ``act`` and record its effect (written by ``finish``, in this unit of
        work). The caller read the effects already recorded under the document's row
        lock, so this one is new; should a second sweeper have got past that lock all
        the same, the record's unique key refuses it and the whole unit of work —
        effect included — rolls back."""
        action, outcome = act()
        self._records.append(
            {
                "org_id": self.org.id,
                "task_id": task.id,
                "document_id": self.doc.id,
                "kind": effect.kind,
                "level": effect.level,
                "action": action,
                "outcome": outcome,
                "applied_at": self.now,
            }
        )
        return True

    def _apply(self, task: DueTask, effect: deadlines.Effect) -> tuple[str, dict[str, Any]]:
        if effect.action == BreachAction.REMIND:
            return self._remind(task, effect)
        if effect.action in (BreachAction.ESCALATE_UP, BreachAction.REASSIGN):
            return self._climb(task, effect)
        if effect.action == BreachAction.AUTO:
            return self._auto(task)
        return Action.SUPERSEDED, {"unknown_action": effect.action}  # pragma: no cover

    # --- the actions ------------------------------------------------------------------

    def _base(self, members: list[int]) -> dict[str, Any]:
        return {
            "document_id": self.doc.id,
            "reference": self.doc.reference,
            "state": self.doc.state,
            "members": sorted(members),
        }

    def _remind(self, task: DueTask, effect: deadlines.Effect) -> tuple[str, dict[str, Any]]:
        payload = self._base([task.assignee_id])
        payload["due_at"] = task.due_at.isoformat() if task.due_at else None
        if effect.kind == deadlines.EffectKind.DUE_SOON:
            add_events(self.session, [("notify.due_soon", payload)])
        else:
            add_events(self.session, [("notify.overdue", {**payload, "level": effect.level})])
        return Action.REMIND, {"members": [task.assignee_id]}

    def _climb(self, task: DueTask, effect: deadlines.Effect) -> tuple[str, dict[str, Any]]:
        reassign = effect.action == BreachAction.REASSIGN
        bound = deadlines.escalation_bound(self.graph, task.state)
        reach = bound - task.level if deadlines.escalation_allowed(task.level, bound) else 0
        steps = steps_of(self.graph, task.state, task.transitions)
        decided = self._steps_decided() if self.graph.exclusive_approval else {}
        refusal = refusal_for(
            self.graph,
            task.state,
            steps,
            self.doc.requester_id,
            decided,
            self.doc.dispute_raiser_id,
        )
        found = climb(
            self.chart, task.assignee_id, reach, refusal, former_seat=self._former_seat(task)
        )
        if isinstance(found, Gap):
            return self._gap(task, effect, found)
        holding = self.holders.setdefault(task.state, set())
        new = [m for m in found.members if m not in holding]
        already = [m for m in found.members if m in holding]
        if not new and not reassign:
            # The seat above is on the step already (another holder's escalation).
            return Action.ESCALATE_UP, {"members": [], "already": list(found.members)}
        task_ids = self._open(task, steps, new, found, reassign)
        if reassign:
            self.session.connection().execute(
                update(TASK_TABLE)
                .where(
                    TASK_TABLE.c.org_id == self.org.id,
                    TASK_TABLE.c.id == task.id,
                    TASK_TABLE.c.status == TaskStatus.OPEN,
                )
                .values(status=TaskStatus.CANCELLED, completed_at=self.now, sweep_at=None)
            )
            self.closed.add(task.id)
            holding.discard(task.assignee_id)
        holding.update(new)
        # Those reached who held the step already are named too (a reassignment to
        # them): the history and the notices say who has the task now, never "nobody".
        climbed = Climbed(
            task.assignee_id,
            task.id,
            effect.kind,
            found.position_id,
            found.members,
            None,
            already=tuple(already),
        )
        seq = self._decision(task, climbed, reassign)
        if reassign:
            events = [
                (
                    "notify.reassigned",
                    {
                        **self._base([*found.members, task.assignee_id]),
                        "from_member": task.assignee_id,
                        "to_members": sorted(found.members),
                        "decision": seq,
                    },
                )
            ]
        else:
            events = [
                (
                    "notify.escalated",
                    {
                        **self._base(new),
                        "from_members": [task.assignee_id],
                        "reason": effect.kind,
                        "decision": seq,
                    },
                ),
                (
                    "notify.escalated_away",
                    {**self._base([task.assignee_id]), "to_members": new, "decision": seq},
                ),
            ]
        add_events(self.session, [(t, p) for t, p in events if p["members"]])
        action = Action.REASSIGN if reassign else Action.ESCALATE_UP
        return action, {
            "members": new,
            **({"already": sorted(already)} if already else {}),
            "tasks": task_ids,
            "position_id": found.position_id,
            "decision": seq,
        }

    def _former_seat(self, task: DueTask) -> int | None:
        """Where a holder off today's chart (deactivated, or out of every seat) climbs
        from: their most recent primary seat. Read only for such a holder."""
        if task.assignee_id in self.chart.primary:
            return None
        return last_primary_seat(self.session, self.org.id, task.assignee_id, self.chart.day)

    def _steps_decided(self) -> Mapping[int, frozenset[str]]:
        if self._decided is None:
            self._decided = steps_decided_in(self.session, self.doc, self.graph)
        return self._decided

    def _open(
        self, task: DueTask, steps: list[str], new: list[int], found: Reached, reassign: bool
    ) -> list[int]:
        """Open the tasks of those reached: the same step, band and transitions as the
        task they climbed from, a deadline of their own, a level higher."""
        if not new:
            return []
        plan = TaskPlan(
            task.state,
            steps[0] if steps else task.state,
            tuple(new),
            task.transitions,
            task.band_floor,
            deadlines.due_at(self.graph.state(task.state), self.now),
        )
        ids: list[int] = []
        open_tasks(
            self.session,
            self.doc,
            self.graph,
            (plan,),
            self.now,
            self.lead,
            level=task.level + found.climbed,
            via=Via.REASSIGNMENT if reassign else Via.ESCALATION,
            ids=ids,
        )
        return sorted(ids)

    def _gap(self, task: DueTask, effect: deadlines.Effect, gap: Gap) -> tuple[str, dict[str, Any]]:
        """Nobody in reach: the history says so and the admins are told (never silence);
        the task stays with its holder."""
        climbed = Climbed(task.assignee_id, task.id, effect.kind, None, (), gap)
        seq = self._decision(task, climbed, effect.action == BreachAction.REASSIGN)
        admins = list(self.chart.roles.get(Role.ADMIN, ()))
        if admins:
            payload = {
                **self._base(admins),
                "from_members": [task.assignee_id],
                "gap": gap.to_json(),
                "decision": seq,
            }
            add_events(self.session, [("notify.escalation_gap", payload)])
        return Action.GAP, {
            "gap": gap.to_json(),
            "decision": seq,
            "bound_reached": gap.reason == GapReason.ESCALATION_BOUND,
        }

    def _decision(self, task: DueTask, climbed: Climbed, reassign: bool) -> int:
        seq, head = append_sweep_decision(
            self.session,
            self.doc,
            transition=BreachAction.REASSIGN if reassign else BreachAction.ESCALATE_UP,
            via=Via.REASSIGNMENT if reassign else Via.ESCALATION,
            climbed=climbed,
            band_floor=task.band_floor,
            now=self.now,
        )
        self.loaded = self.loaded.changed(chain_seq=seq, chain_hash=head)
        return seq

    def _auto(self, task: DueTask) -> tuple[str, dict[str, Any]]:
        state = self.graph.state(task.state)
        key = state.deadline.transition if state and state.deadline else None
        actor = SystemActor(
            org_id=self.org.id,
            org_slug=self.org.slug,
            time_zone=self.org.time_zone,
            reminder_lead_minutes=self.org.reminder_lead_minutes,
            deadline_sweep=True,
        )
        try:
            with self.session.begin_nested():
                moved = transition_in(
                    self.uow, actor, self.doc.reference, key or "", seen_state=task.state
                )
        except DomainError as refused:
            if not self._auto_refusal_told:
                self._auto_refusal_told = True
                admins = list(self.chart.roles.get(Role.ADMIN, ()))
                if admins:
                    payload = {**self._base(admins), "transition": key, "code": refused.code}
                    add_events(self.session, [("notify.auto_refused", payload)])
            return Action.REFUSED, {"transition": key, "code": refused.code}
        self.moved = True
        return Action.AUTO, {
            "transition": key,
            "to_state": moved.document.state,
            "decision": moved.decision_seq,
        }
