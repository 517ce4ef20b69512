"""What the deadline benchmark and the fault tests read back, as the schema owner: what
is still due, whether the workers are idle, and the exactly-once counts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rq import Queue, Worker
from sqlalchemy import Connection, Engine, text


@contextmanager
def in_org(owner: Engine, org_id: int) -> Iterator[Connection]:
    """A transaction as the schema owner inside one organization (row-level security is
    forced for the owner too)."""
    with owner.begin() as conn:
        conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org_id)})
        yield conn


def still_due(owner: Engine, org_ids: list[int]) -> int:
    with owner.begin() as conn:  # the operator's view: due tasks across organizations
        conn.execute(text("SELECT set_config('app.operator', 'on', true)"))
        return int(
            conn.scalar(
                text(
                    "SELECT count(*) FROM task WHERE status = 'open' AND sweep_at <= now()"
                    " AND org_id = ANY(:ids)"
                ),
                {"ids": org_ids},
            )
            or 0
        )


def wait_until_idle(queue: Queue, timeout: float = 120.0, *, pids: set[int] | None = None) -> None:
    """Until nothing waits on the queue and no job is running (on the workers ``pids``
    only, when given: a killed worker's job stays registered as started for a while)."""

    def busy() -> bool:
        if queue.count:
            return True
        if pids is None:
            return bool(queue.started_job_registry.count)
        return any(w.get_state() == "busy" for w in Worker.all(queue=queue) if w.pid in pids)

    deadline = time.monotonic() + timeout
    while busy():
        if time.monotonic() > deadline:
            raise RuntimeError(f"queue {queue.name} still busy after {timeout} s")
        time.sleep(0.05)


_CHECKS = {
    "escalated": "SELECT count(DISTINCT task_id) FROM deadline_effect"
    " WHERE org_id = :o AND kind = 'breach'",
    "effects": "SELECT count(*) FROM (SELECT 1 FROM deadline_effect WHERE org_id = :o"
    " GROUP BY task_id, kind, level HAVING count(*) > 1) x",
    "decisions": "SELECT count(*) FROM (SELECT 1 FROM decision WHERE org_id = :o"
    " AND gate = 'deadline' GROUP BY document_id HAVING count(*) > 1) x",
    "events": "SELECT count(*) FROM (SELECT 1 FROM outbox WHERE org_id = :o"
    " AND topic LIKE 'notify.%' GROUP BY topic, payload->>'document_id' HAVING count(*) > 1) x",
    "notifications": "SELECT count(*) FROM (SELECT 1 FROM notification WHERE org_id = :o"
    " GROUP BY member_id, document_id, code HAVING count(*) > 1) x",
}


def count_effects(owner: Engine, org_ids: list[int]) -> dict[str, int]:
    """The exactly-once check, summed over the organizations."""
    totals = dict.fromkeys(_CHECKS, 0)
    for org_id in org_ids:
        with in_org(owner, org_id) as conn:
            for name, sql in _CHECKS.items():
                totals[name] += int(conn.scalar(text(sql), {"o": org_id}) or 0)
    return totals
