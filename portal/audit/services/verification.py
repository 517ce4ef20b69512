"""Proving that nothing in the history was changed: a pass over every document's hash
chain in the organization, stored as a ``ChainVerification`` with what it found; a pass
asked for from the audit home page; and when tonight's nightly pass is due.

How a pass cuts its transactions: the chains are read in batches of documents, each
batch one statement in a short read-only unit of work of its own (never one
transaction held open over a quarter of a million decisions, keeping vacuum back and a
connection busy for the whole pass). A statement sees one snapshot, so each document's
head and its decisions are read together: a chain extended while the pass runs is seen
whole, before or after the new decision, and never reported broken. Documents created
during the pass are checked when the keyset reaches them. The result is written last,
in its own unit of work, with the moments the pass started and finished.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime, time, timedelta
from typing import Any

from redis.exceptions import RedisError

from portal.accounts.queries import member_names
from portal.audit.models import ChainVerification, VerificationTrigger
from portal.audit.queries.verification import (
    VerificationSummary,
    latest_in,
    ran_since_in,
    summary_of,
)
from portal.core.clock import clock
from portal.core.queue import enqueue, redis_holder
from portal.core.uow import unit_of_work_for
from portal.documents.queries.chains import CHAIN_BATCH, check_chains_after, count_chains_in
from portal.domain.actor import Actor, SystemActor, require_audit_reader
from portal.domain.errors import Conflict
from portal.domain.time_zones import zone

# Told how far the pass is: (chains checked, chains in all).
Progress = Callable[[int, int], Any]

# The local hour of the nightly pass, in each organization's own zone.
NIGHTLY_HOUR = 2
# How long a pass asked for from the page keeps a second request out (seconds): longer
# than any pass takes; the job clears it as it starts.
QUEUED_FOR = 3600


def verify_organization(
    actor: Actor | SystemActor,
    trigger: str,
    *,
    progress: Progress | None = None,
    batch: int = CHAIN_BATCH,
) -> VerificationSummary:
    """Check every chain of the actor's organization and store the result (who asked:
    the member for a pass asked for from the page, nobody for the nightly job and the
    command line); returns what was stored."""
    require_audit_reader(actor)
    assert trigger in VerificationTrigger.ALL, trigger
    org_id = actor.org_id
    started = clock.now()
    with unit_of_work_for(actor) as uow:
        total = count_chains_in(uow.session, org_id)
    if progress is not None:
        progress(0, total)
    chains = decisions = 0
    failures: list[dict[str, Any]] = []
    after = 0
    while True:
        with unit_of_work_for(actor) as uow:
            checked = check_chains_after(uow.session, org_id, after, batch)
        if not checked:
            break
        for chain in checked:
            chains += 1
            decisions += chain.check.decisions
            if not chain.check.ok:
                failures.append(
                    {
                        "reference": chain.reference,
                        "document_id": chain.document_id,
                        "seq": chain.check.broken_at,
                    }
                )
        after = checked[-1].document_id
        if progress is not None:
            # Documents created during the pass are checked too: the total grows.
            progress(chains, max(total, chains))
    with unit_of_work_for(actor) as uow:
        row = ChainVerification(
            org_id=org_id,
            trigger=trigger,
            member_id=actor.member_id,
            started_at=started,
            finished_at=clock.now(),
            chains=chains,
            decisions=decisions,
            failures=failures,
        )
        uow.session.add(row)
        uow.session.flush()
        name = member_names(uow.session, [actor.member_id]).get(actor.member_id or 0)
        return summary_of(row, name)


def latest_verification(actor: Actor | SystemActor) -> VerificationSummary | None:
    """The organization's latest pass, for the audit home page's status."""
    require_audit_reader(actor)
    with unit_of_work_for(actor) as uow:
        return latest_in(uow.session, actor.org_id)


# --- a pass asked for from the audit home page ---------------------------------------------


def queued_flag(org_id: int) -> str:
    return f"portal:audit-verify-queued:{org_id}"


def request_verification(actor: Actor) -> bool:
    """Queue a pass over the organization's chains for an auditor or admin who asked
    for one; False when one asked for is still waiting (a second request adds nothing:
    the waiting pass will read the same chains)."""
    require_audit_reader(actor)
    flag = queued_flag(actor.org_id)
    try:
        connection = redis_holder.get()
        if not connection.set(flag, str(actor.member_id), nx=True, ex=QUEUED_FOR):
            return False
    except RedisError:
        raise Conflict("verification_unavailable") from None
    try:
        enqueue("portal.audit.jobs.verify_requested", actor.org_id, actor.member_id)
    except Exception:
        # No job is waiting: the flag must not keep the next request out.
        with suppress(RedisError):
            connection.delete(flag)
        raise Conflict("verification_unavailable") from None
    return True


def verification_queued(actor: Actor | SystemActor) -> bool:
    """Whether a pass asked for from the page is waiting for a worker."""
    require_audit_reader(actor)
    try:
        return bool(redis_holder.get().exists(queued_flag(actor.org_id)))
    except Exception:  # Redis away: the page shows the last result without the notice
        return False


# --- the nightly pass ----------------------------------------------------------------------


def nightly_slot(now: datetime, zone_name: str, hour: int = NIGHTLY_HOUR) -> datetime:
    """The instant (UTC) of the latest nightly pass due by ``now``: ``hour`` o'clock
    today in the organization's zone if that has come, else yesterday's. A gap (02:00
    skipped by a daylight-saving change) is read as zoneinfo reads it: the hour after."""
    tz = zone(zone_name)
    local = now.astimezone(tz)
    slot = datetime.combine(local.date(), time(hour), tzinfo=tz)
    if slot > local:
        slot = datetime.combine(local.date() - timedelta(days=1), time(hour), tzinfo=tz)
    return slot.astimezone(UTC)


def verify_nightly(org_id: int, slot: datetime) -> VerificationSummary | None:
    """The organization's nightly pass for ``slot``, as the platform; None when that
    night's pass already ran (a second delivery of the same job, two schedulers)."""
    system = SystemActor(org_id=org_id)
    with unit_of_work_for(system) as uow:
        if ran_since_in(uow.session, org_id, VerificationTrigger.NIGHTLY, slot):
            return None
    return verify_organization(system, VerificationTrigger.NIGHTLY)
