"""The deadline sweep's jobs: the periodic planner (``portal scheduler`` runs it) that
enqueues one job per organization with due work, that job, and both at once in this
process for the command line, the tests and the embedded demo.

Organizations' jobs go on the ``sweep`` queue, apart from the outbox's deliveries.
An organization's job is enqueued at most once while it waits: a flag in Redis is set
when it is enqueued and cleared when it starts (the outbox's doorbell does the same),
so a planner tick that finds the organization still due while its job is queued adds
nothing, and one that finds it being swept queues the next pass. (A fixed RQ job id
would do the first, but let the queued job overwrite the running one's record.) A job
that is lost (Redis flushed, a worker killed) is enqueued again by a later tick once
the flag expires; the effects' unique key makes any repeat harmless.
"""

from __future__ import annotations

import logging

from portal.core.queue import SWEEP_QUEUE, enqueue, redis_holder
from portal.deadlines import services

log = logging.getLogger(__name__)

# How long an enqueued organization job keeps others out (seconds).
QUEUED_FOR = 300


def _queued_flag(org_id: int) -> str:
    return f"portal:sweep-org-queued:{org_id}"


def sweep_deadlines() -> int:
    """The periodic planner: enqueue ``sweep_organization`` for every organization with
    due work (one waiting job each); returns how many were enqueued. Another planner
    at it this moment, or Redis unreachable: nothing now, the next tick tries again."""
    due = services.organizations_to_sweep()
    if not due:
        return 0
    enqueued = 0
    try:
        connection = redis_holder.get()
        for org_id in due:
            flag = _queued_flag(org_id)
            if connection.set(flag, "1", nx=True, ex=QUEUED_FOR):
                try:
                    enqueue(sweep_organization, org_id, queue_name=SWEEP_QUEUE)
                except Exception:
                    # No job is waiting: the flag must not keep the next tick out.
                    connection.delete(flag)
                    raise
                enqueued += 1
    except Exception as exc:  # the due tasks stay due: the next tick finds them again
        log.warning("could not enqueue the deadline sweep: %s", exc)
    return enqueued


def sweep_organization(org_id: int, *, batch: int = 100) -> int:
    """Apply every due effect in the organization; returns how many were applied."""
    try:
        redis_holder.get().delete(_queued_flag(org_id))
    except Exception as exc:  # Redis down: the sweep still runs
        log.warning("could not clear the sweep flag of org %s: %s", org_id, exc)
    return services.sweep_organization_now(org_id, batch=batch)


def sweep_now() -> int:
    """Plan and sweep every organization in this process (the command line, tests,
    the embedded demo); returns how many effects were applied."""
    return sweep_once() or 0


def sweep_once() -> int | None:
    """As ``sweep_now``, but None when another planner holds the lock this moment (it
    is sweeping: nothing was done here)."""
    due = services.organizations_to_sweep()
    if due is None:
        return None
    return sum(services.sweep_organization_now(org_id) for org_id in due)
