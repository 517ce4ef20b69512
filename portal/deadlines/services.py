"""The deadline sweep's units of work: finding the organizations with due work (the
platform operator's scope, once per tick across every scheduler), and within one
organization applying each document's due effects in a transaction of its own.

A document is claimed by locking its row ``FOR UPDATE SKIP LOCKED``: one being decided
or swept by someone else is left for a later pass, and the decision that races the
sweep either commits first (its tasks are closed: nothing is due) or waits. Every effect
is keyed by (task, kind, level) in ``deadline_effect``, so a second sweep, a second
scheduler or a retried job does nothing twice. A document whose sweep fails is put off
for ``RETRY_AFTER`` (its due tasks' ``sweep_at`` moved on), not retried every tick.

SQLite (the embedded demo) has no row locks nor advisory locks: its web threads and its
worker thread share one database file (in WAL mode: readers never wait), and writers
take turns on the file's one write lock. A second writer waits for it (the busy
timeout); one whose transaction read before another's write was committed is refused
("database is locked"), its unit of work rolls back, and the document is swept on a
later tick: never a second effect.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.orm import Session

from portal.core import outbox
from portal.core.clock import clock
from portal.core.db import storable_ids
from portal.core.heartbeat import SWEEP_HEARTBEAT, beat
from portal.core.uow import operator_work, unit_of_work
from portal.deadlines.effects import DocumentSweep
from portal.deadlines.queries import (
    SweptOrganization,
    documents_due,
    due_tasks_put_off,
    effects_recorded,
    lock_document,
    open_tasks_of,
    organization_in,
    organizations_due,
)
from portal.flows.queries import version_in
from portal.orgchart.queries import load_chart

log = logging.getLogger(__name__)

# How long a document whose sweep failed waits before it is tried again.
RETRY_AFTER = timedelta(minutes=5)
# The key of the transaction-scoped advisory lock one planner holds at a time.
PLANNER_LOCK = 0x5EE9_D1E5


def _postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def organizations_to_sweep() -> list[int] | None:
    """The organizations with due work, and the heartbeat beaten; None when another
    planner holds the lock this very moment (it does the same work)."""
    started = time.monotonic()
    with operator_work() as uow:
        s = uow.session
        if _postgres(s) and not s.scalar(
            text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": PLANNER_LOCK}
        ):
            return None
        due = organizations_due(s, clock.now())
        elapsed_ms = round((time.monotonic() - started) * 1000)
        beat(s, SWEEP_HEARTBEAT, {"orgs": len(due), "duration_ms": elapsed_ms})
    return due


def sweep_organization_now(org_id: int, *, batch: int = 100) -> int:
    """Apply every due effect in the organization, one document per unit of work, in
    batches of ``batch`` documents; returns how many effects were applied. Documents
    are walked once, in id order: one that is locked waits for the next tick, one that
    fails for ``RETRY_AFTER``. An id that names no organization (or no row at all)
    sweeps nothing."""
    if not storable_ids([org_id]):
        return 0
    with unit_of_work(org_id) as uow:
        org = organization_in(uow.session, org_id)
    if org is None:
        return 0
    applied, after = 0, 0
    while True:
        with unit_of_work(org_id) as uow:
            ids = documents_due(uow.session, org_id, clock.now(), after, batch)
        if not ids:
            return applied
        before = applied
        for document_id in ids:
            try:
                applied += sweep_document(org, document_id)
            except Exception:  # one document's trouble must not stall the others
                log.exception("deadline sweep of document %s (org %s) failed", document_id, org_id)
                _put_off(org_id, document_id)
        # One doorbell per batch, not per document: the notices of a hundred documents
        # go out in one dispatch.
        if applied > before:
            outbox.nudge(org_id)
        after = ids[-1]


def _put_off(org_id: int, document_id: int) -> None:
    """Move a failed document's due tasks on by ``RETRY_AFTER``, in a unit of work of
    its own (the failed one rolled back): it is tried again then, not every tick."""
    try:
        with unit_of_work(org_id) as uow:
            due_tasks_put_off(uow.session, org_id, document_id, clock.now(), RETRY_AFTER)
    except Exception as exc:  # the database itself is in trouble: the next tick tries
        log.warning(
            "could not put off the sweep of document %s (org %s): %s", document_id, org_id, exc
        )


def sweep_document(org: SweptOrganization, document_id: int) -> int:
    """The due effects of one document, in one unit of work under its row lock;
    returns how many were applied (0: none due, or the row is taken)."""
    with unit_of_work(org.id) as uow:
        s = uow.session
        loaded = lock_document(s, org.id, document_id, skip_locked=True)
        if loaded is None:
            return 0
        now = clock.now()
        open_now = open_tasks_of(s, loaded.doc)
        tasks = [task for task in open_now if task.due_by(now)]
        if not tasks:
            return 0
        doc = loaded.doc
        graph = version_in(s, org.id, doc.kind, doc.version).graph
        chart = load_chart(s, clock.today_in(org.time_zone), version=loaded.chart_version)
        done = effects_recorded(s, doc)
        sweep = DocumentSweep(uow, org, loaded, graph, chart, now, open_now)
        for task in tasks:
            sweep.sweep_task(task, done.get(task.id, set()))
        sweep.finish()
        return sweep.applied
