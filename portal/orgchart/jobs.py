"""The org chart's RQ jobs: a CSV import, checked and applied on a worker.

Thin and safe to run twice: the job claims its import (queued → running) with ``FOR
UPDATE SKIP LOCKED``, so a second delivery finds nothing to do; the file is checked and
applied in one unit of work (all or nothing) acting as the admin who started it, and
its progress is counted in Redis for the page that follows it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import or_, select

from portal.accounts.queries import acting_member_in
from portal.core.clock import clock
from portal.core.queue import redis_holder
from portal.core.uow import unit_of_work
from portal.domain.actor import Actor
from portal.domain.errors import DomainError, RowErrors
from portal.orgchart.csv_import import ImportResult, import_rows_in
from portal.orgchart.csv_rows import parse_csv
from portal.orgchart.models import ImportJob, ImportStatus
from portal.orgchart.services.imports import PROGRESS_SECONDS, STALE_AFTER, progress_key

log = logging.getLogger(__name__)
# Progress is written every so many rows (and at the end), not on every row.
PROGRESS_EVERY = 25


def _claim(org_id: int, job_id: int) -> tuple[Actor | None, str, str] | None:
    """Take a queued import, or one whose worker died (running far past any import's
    time; its work was all rolled back with it)."""
    now = clock.now()
    with unit_of_work(org_id) as uow:
        job = uow.session.scalar(
            select(ImportJob)
            .where(
                ImportJob.id == job_id,
                or_(
                    ImportJob.status == ImportStatus.QUEUED,
                    (ImportJob.status == ImportStatus.RUNNING)
                    & (ImportJob.started_at < now - STALE_AFTER),
                ),
            )
            .with_for_update(skip_locked=True)
        )
        if job is None:
            return None
        job.status, job.started_at = ImportStatus.RUNNING, now
        return acting_member_in(uow.session, job.created_by), job.kind, job.content


def _finish(org_id: int, job_id: int, status: str, **outcome: object) -> None:
    with unit_of_work(org_id) as uow:
        job = uow.session.scalar(select(ImportJob).where(ImportJob.id == job_id))
        assert job is not None
        job.status, job.finished_at = status, clock.now()
        for name, value in outcome.items():
            setattr(job, name, value)


def _reporter(org_id: int, job_id: int) -> Callable[[int], None]:
    key = progress_key(org_id, job_id)

    def report(applied: int) -> None:
        if applied % PROGRESS_EVERY == 0:
            try:
                redis_holder.get().set(key, applied, ex=PROGRESS_SECONDS)
            except Exception as exc:  # progress is a courtesy; the import goes on
                log.warning("import %s: progress not recorded: %s", job_id, exc)

    return report


def run_import(org_id: int, job_id: int) -> str:
    """Check and apply a queued import; answers what became of it."""
    claimed = _claim(org_id, job_id)
    if claimed is None:
        return "not queued"
    actor, kind, content = claimed
    if actor is None or not actor.is_admin:
        _finish(org_id, job_id, ImportStatus.FAILED, failure="admin_required")
        return ImportStatus.FAILED
    try:
        with unit_of_work(org_id, user_id=actor.user_id) as uow:
            rows = parse_csv(content, kind)
            result: ImportResult = import_rows_in(uow, actor, kind, rows, _reporter(org_id, job_id))
    except RowErrors as refused:
        problems = [
            {"row": e.row, "code": e.code, "column": e.column, "params": e.params}
            for e in refused.rows
        ]
        _finish(org_id, job_id, ImportStatus.FAILED, problems=problems)
        return ImportStatus.FAILED
    except DomainError as refused:
        _finish(org_id, job_id, ImportStatus.FAILED, failure=refused.code)
        return ImportStatus.FAILED
    except Exception:
        log.exception("import %s of organization %s failed", job_id, org_id)
        _finish(org_id, job_id, ImportStatus.FAILED, failure="import_crashed")
        raise
    _finish(
        org_id,
        job_id,
        ImportStatus.DONE,
        created=result.created,
        updated=result.updated,
        invited=result.invited,
    )
    return ImportStatus.DONE
