"""The verification's jobs: the nightly planner (a periodic job, ``core.schedule``) that
enqueues one pass per organization once its 02:00 has come, that pass, and a pass an
auditor or admin asked for from the audit home page.

Exactly once per night and organization, twice over: the planner claims each
organization's slot in Redis (``SET NX``, one key per organization and night) before it
enqueues, so a planner tick every few minutes and two schedulers at once enqueue it
once; and the pass itself first looks for a nightly result started at or after the
slot, so a second delivery (the key lost with a flushed Redis, a retried job) stores
nothing twice. A planner that was down at 02:00 catches up at its next tick: the slot
is the latest 02:00 that has come, in the organization's own zone.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import text

from portal.accounts.queries import acting_member_in
from portal.audit.models import VerificationTrigger
from portal.audit.services import verification
from portal.core.clock import clock
from portal.core.queue import enqueue, redis_holder
from portal.core.uow import operator_work, unit_of_work
from portal.domain.errors import NotFound

log = logging.getLogger(__name__)

# How long a night's claim is kept (seconds): past the next night's slot.
CLAIM_FOR = 2 * 86_400


def _claim_key(org_id: int, slot: datetime) -> str:
    return f"portal:audit-nightly:{org_id}:{slot.isoformat()}"


def plan_nightly_verifications() -> int:
    """Enqueue the nightly pass of every organization whose 02:00 has come and whose
    pass for that night is not yet enqueued; returns how many were enqueued."""
    now = clock.now()
    with operator_work() as uow:
        orgs = list(
            uow.session.execute(
                text("SELECT id, time_zone FROM organization WHERE archived_at IS NULL ORDER BY id")
            )
        )
    enqueued = 0
    # Each organization on its own: one that cannot be planned (Redis away a moment, a
    # zone the platform no longer knows) keeps no other from its pass.
    for org_id, zone_name in orgs:
        try:
            connection = redis_holder.get()
            slot = verification.nightly_slot(now, zone_name or "UTC")
            key = _claim_key(org_id, slot)
            if connection.set(key, "1", nx=True, ex=CLAIM_FOR):
                try:
                    enqueue(verify_nightly, org_id, slot.isoformat())
                except Exception:
                    connection.delete(key)  # the next tick tries again
                    raise
                enqueued += 1
        except Exception as exc:  # the slot stays unclaimed: the next tick finds it again
            log.warning("could not enqueue the nightly verification of org %s: %s", org_id, exc)
    return enqueued


def verify_nightly(org_id: int, slot: str) -> int | None:
    """One organization's nightly pass; returns how many chains are broken (None: that
    night's pass had already run)."""
    result = verification.verify_nightly(org_id, datetime.fromisoformat(slot))
    if result is None:
        return None
    if not result.ok:
        log.error(
            "organization %s: %d of %d chains broken", org_id, len(result.failures), result.chains
        )
    return len(result.failures)


def verify_requested(org_id: int, member_id: int) -> int | None:
    """A pass an auditor or admin asked for, stored as theirs; returns how many chains
    are broken (None: they no longer belong to the organization, or no longer audit)."""
    # The flag stays up until the pass has run: a request while it runs adds no
    # second pass over the same chains.
    try:
        with unit_of_work(org_id) as uow:
            actor = acting_member_in(uow.session, member_id)
        if actor is None:
            log.warning("member %s of org %s left before their verification ran", member_id, org_id)
            return None
        try:
            result = verification.verify_organization(actor, VerificationTrigger.MANUAL)
        except NotFound:  # no longer an auditor or admin
            return None
        return len(result.failures)
    finally:
        try:
            redis_holder.get().delete(verification.queued_flag(org_id))
        except Exception as exc:  # Redis away: the flag expires on its own
            log.warning("could not clear the verification flag of org %s: %s", org_id, exc)
