"""The daily digest: a member who takes it gets no single mails, and once a day, after
08:00 in their zone, one mail listing what would have been mailed since the last one;
a second run the same day sends nothing; the next day lists only what is new."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from portal.core.clock import clock
from portal.core.heartbeat import last_beat
from portal.core.uow import operator_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.notice_preferences import settings_of
from portal.notifications.jobs import send_digests
from portal.notifications.queries import notice_preferences_of
from portal.notifications.services import save_notice_preferences
from tests.conftest import deliver_mail

CLAIM = {"category": "travel", "expense_date": "2026-11-20"}
NURUL = "nurul@acme.example"


def _claim(actor, title: str):
    doc = documents.create_document(
        actor, kind="expense_claim", title=title, amount=Decimal("12.00"), fields=CLAIM
    )
    transitions.transition_document(actor, doc.reference, "submit", seen_state="draft")
    return doc


def test_a_digest_lists_the_days_notices_once_and_the_next_day_only_the_new(app, people, mailbox):
    siti, jason, nurul = people("siti"), people("jason"), people("nurul")
    save_notice_preferences(nurul, settings_of(None, True))
    assert notice_preferences_of(nurul).email_digest

    # 07:30 in Kuala Lumpur: three claims wait for Nurul; no single mail, no digest yet.
    clock.freeze(datetime(2026, 12, 1, 23, 30, tzinfo=UTC))
    claims = [_claim(siti, "Hotel"), _claim(jason, "Parking"), _claim(siti, "Dinner")]
    deliver_mail(siti.org_id)
    assert mailbox.to(NURUL) == []
    assert send_digests() == 0

    # 08:30 there: one digest listing all three.
    clock.freeze(datetime(2026, 12, 2, 0, 30, tzinfo=UTC))
    assert send_digests() == 1
    deliver_mail(siti.org_id)
    [digest] = mailbox.to(NURUL)
    assert digest.subject == "Your Countersign digest for 2 Dec 2026: 3 notices"
    for doc in claims:
        assert f"{doc.reference} “{doc.title}”" in digest.text
        assert f"https://countersign.test/o/acme/documents/{doc.reference}" in digest.text
    assert digest.link("/o/acme/notifications/preferences")
    with operator_work() as uow:
        beat = last_beat(uow.session, "mail_digest")
        assert beat is not None and beat.beat_at == clock.now()
        assert beat.detail["digests"] == 1

    # Later the same day: nothing more, even with a new notice waiting.
    clock.freeze(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    later = _claim(jason, "Taxi")
    deliver_mail(siti.org_id)
    assert send_digests() == 0
    deliver_mail(siti.org_id)
    assert len(mailbox.to(NURUL)) == 1

    # The next morning: only what came since the last digest.
    clock.freeze(datetime(2026, 12, 3, 1, 0, tzinfo=UTC))
    assert send_digests() == 1
    deliver_mail(siti.org_id)
    second = mailbox.to(NURUL)[1]
    assert second.subject == "Your Countersign digest for 3 Dec 2026: 1 notice"
    assert later.reference in second.text
    assert all(doc.reference not in second.text for doc in claims)
    assert send_digests() == 0


def test_a_digest_lists_only_the_kinds_taken_by_mail_and_skips_a_quiet_day(app, people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    clock.freeze(datetime(2026, 12, 2, 0, 0, tzinfo=UTC))  # 08:00 in Kuala Lumpur
    # Siti takes a digest, and her documents' moves by mail (off by default).
    chosen = settings_of({"document_moved": {"email": True}}, True)
    save_notice_preferences(siti, chosen)
    doc = _claim(siti, "Hotel")
    transitions.transition_document(
        nurul, doc.reference, "reject", seen_state="pending_review", comment="no receipt"
    )
    deliver_mail(siti.org_id)
    assert mailbox.to("siti@acme.example") == []
    assert send_digests() == 1
    deliver_mail(siti.org_id)
    [digest] = mailbox.to("siti@acme.example")
    assert "Nurul Huda chose “Reject”" in digest.text

    # A member who takes a digest but had nothing mailable gets none.
    save_notice_preferences(nurul, settings_of({"assigned": {"email": False}}, True))
    clock.freeze(datetime(2026, 12, 3, 1, 0, tzinfo=UTC))
    _claim(siti, "Lunch")
    deliver_mail(siti.org_id)
    assert send_digests() == 0
    deliver_mail(siti.org_id)
    assert all("digest" not in m.subject for m in mailbox.to(NURUL))
