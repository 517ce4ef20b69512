"""CSV imports as background jobs: the file is read and accepted at once (a file that
is no CSV, or has cells no row could use, is refused on the spot), then a worker checks
and applies it (``orgchart.jobs``) while the page follows its progress."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from portal.core.clock import clock
from portal.core.queue import enqueue, redis_holder
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import DomainError, NotFound, RowError
from portal.domain.text_input import clean_text
from portal.orgchart.csv_rows import COLUMNS, decode_csv, parse_csv
from portal.orgchart.models import ImportJob, ImportStatus

# How long a finished job's progress counter is kept in Redis.
PROGRESS_SECONDS = 24 * 3600
# Far longer than the largest file takes (5,000 rows in well under a minute): a job
# "running" past this lost its worker, and may be started again.
STALE_AFTER = timedelta(minutes=30)


def progress_key(org_id: int, job_id: int) -> str:
    return f"portal:import-progress:{org_id}:{job_id}"


@dataclass(frozen=True)
class ImportView:
    id: int
    kind: str
    filename: str
    rows: int
    status: str
    # Rows applied so far (from the worker, while it runs).
    applied: int
    created: int
    updated: int
    invited: int
    problems: list[RowError]
    failure: str | None
    created_at: datetime
    finished_at: datetime | None
    # Running, but its worker is gone: it may be started again.
    stalled: bool = False

    @property
    def finished(self) -> bool:
        return self.status in (ImportStatus.DONE, ImportStatus.FAILED)


def start_import(actor: Actor, *, kind: str, filename: str, data: bytes) -> int:
    """Accept a file for import and queue it; answers the job's id."""
    require_admin(actor)
    if kind not in COLUMNS:
        raise NotFound("import_kind")
    text = decode_csv(data)
    rows = parse_csv(text, kind)
    name = clean_text(filename or "import.csv", field="file", limit=10_000)[:255]
    with unit_of_work_for(actor) as uow:
        job = ImportJob(
            kind=kind,
            filename=name,
            content=text,
            rows=len(rows),
            status=ImportStatus.QUEUED,
            created_by=actor.member_id,
            problems=[],
            created_at=clock.now(),
        )
        uow.session.add(job)
        uow.session.flush()
        job_id, org_id = job.id, actor.org_id
        uow.after_commit(lambda: enqueue("portal.orgchart.jobs.run_import", org_id, job_id))
    return job_id


def _applied(org_id: int, job_id: int) -> int:
    try:
        raw = redis_holder.get().get(progress_key(org_id, job_id))
    except Exception:  # Redis down: the page shows the status without a count
        return 0
    return int(raw) if raw is not None else 0


def _problem(entry: dict[str, Any]) -> RowError:
    return RowError(entry["row"], entry["code"], entry.get("column"), **entry.get("params", {}))


def get_import(actor: Actor, job_id: int) -> ImportView:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        job = uow.session.scalar(select(ImportJob).where(ImportJob.id == job_id))
        if job is None:
            raise NotFound("import")
        applied = job.rows if job.status == ImportStatus.DONE else _applied(actor.org_id, job.id)
        return ImportView(
            job.id,
            job.kind,
            job.filename,
            job.rows,
            job.status,
            applied,
            job.created,
            job.updated,
            job.invited,
            [_problem(p) for p in job.problems],
            job.failure,
            job.created_at,
            job.finished_at,
            _stalled(job),
        )


def _stalled(job: ImportJob) -> bool:
    started = job.started_at
    return job.status == ImportStatus.RUNNING and (
        started is None or clock.now() - started > STALE_AFTER
    )


def restart_import(actor: Actor, job_id: int) -> None:
    """Queue again an import whose worker was lost (its writes were rolled back)."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        job = uow.session.scalar(select(ImportJob).where(ImportJob.id == job_id))
        if job is None:
            raise NotFound("import")
        if not _stalled(job):
            raise DomainError("import_not_stalled")
        org_id = actor.org_id
        uow.after_commit(lambda: enqueue("portal.orgchart.jobs.run_import", org_id, job_id))
