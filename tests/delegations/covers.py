"""Covers for the read-time tests, written straight to their table: what is tested here
is how the inbox, the pages and the authority check read a cover, not how one is set
(that is ``delegations.services``, with its own refusals)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import update

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.delegations.models import Delegation
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.actor import Actor

ZONE = "Asia/Kuala_Lumpur"
CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}
PURCHASE_FIELDS = {"supplier": "Paper Co", "category": "goods"}


def set_cover(
    delegator: Actor,
    delegate: Actor,
    first: date,
    last: date,
    *,
    kind: str | None = None,
    reason: str = "Annual leave",
    set_by: Actor | None = None,
) -> int:
    """A cover from ``delegator`` to ``delegate`` for ``first``..``last`` (both days
    included, in the organization's zone); its id."""
    with unit_of_work(delegator.org_id) as uow:
        row = Delegation(
            org_id=delegator.org_id,
            delegator_id=delegator.member_id,
            delegate_id=delegate.member_id,
            kind=kind,
            valid_from=first,
            valid_to=last,
            reason=reason,
            created_by=(set_by or delegator).member_id,
            created_at=clock.now(),
        )
        uow.session.add(row)
        uow.session.flush()
        return row.id


def revoke_cover(by: Actor, delegation_id: int) -> None:
    with unit_of_work(by.org_id) as uow:
        uow.session.execute(
            update(Delegation)
            .where(Delegation.org_id == by.org_id, Delegation.id == delegation_id)
            .values(revoked_at=clock.now(), revoked_by=by.member_id)
        )


def local_moment(day: date, hour: int, minute: int = 0, zone: str = ZONE) -> datetime:
    """``hour:minute`` on ``day`` in ``zone``, as an aware instant (for ``clock.freeze``)."""
    return datetime.combine(day, time(hour, minute), tzinfo=ZoneInfo(zone))


def start_today() -> date:
    """Freeze the clock at 10:00 today in the demo's zone (its seats are held from the
    day it was seeded, so the story never starts earlier); that day."""
    today = clock.today_in(ZONE)
    clock.freeze(local_moment(today, 10))
    return today


def submitted_claim(requester: Actor, title: str = "Client visit", amount: str = "480.00"):
    doc = documents.create_document(
        requester, kind="expense_claim", title=title, amount=Decimal(amount), fields=CLAIM_FIELDS
    )
    return transitions.transition_document(
        requester, doc.reference, "submit", seen_state="draft"
    ).document


def submitted_purchase(requester: Actor, title: str = "Printer paper", amount: str = "300.00"):
    doc = documents.create_document(
        requester,
        kind="purchase_request",
        title=title,
        amount=Decimal(amount),
        fields=PURCHASE_FIELDS,
    )
    return transitions.transition_document(
        requester, doc.reference, "submit", seen_state="draft"
    ).document


def move(actor: Actor, doc, key: str, comment: str = ""):
    return transitions.transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment
    ).document


DAY = timedelta(days=1)
