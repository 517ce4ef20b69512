"""The daily digest: a member who takes it gets no single mails, and once a day, after
08:00 in their zone, one mail listing what would have been mailed since the last one;
a second run the same day sends nothing; the next day lists only what is new."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
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
from portal.web.i18n import format_day, locale_for
from tests.conftest import deliver_mail

# The day the digests are for: tomorrow, so the tests' people (seated today, whenever
# the suite runs) hold their seats on every day the clock is set to.
DAY = datetime.now(UTC).date() + timedelta(days=1)
CLAIM = {"category": "travel", "expense_date": (DAY - timedelta(days=12)).isoformat()}


def _at(days: int, hour: int, minute: int = 0) -> datetime:
    """``hour``:``minute`` UTC, ``days`` after DAY (Kuala Lumpur is 8 hours ahead)."""
    return datetime.combine(DAY + timedelta(days=days), time(hour, minute), tzinfo=UTC)


def _written(day: date) -> str:
    """The day as the digest's subject writes it in English ("2 Dec 2026")."""
    return format_day(day, locale_for("en", "MY"))


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
    clock.freeze(_at(-1, 23, 30))
    claims = [_claim(siti, "Hotel"), _claim(jason, "Parking"), _claim(siti, "Dinner")]
    deliver_mail(siti.org_id)
    assert mailbox.to(NURUL) == []
    assert send_digests() == 0

    # 08:30 there: one digest listing all three.
    clock.freeze(_at(0, 0, 30))
    assert send_digests() == 1
    deliver_mail(siti.org_id)
    [digest] = mailbox.to(NURUL)
    assert digest.subject == f"Your Countersign digest for {_written(DAY)}: 3 notices"
    for doc in claims:
        assert f"{doc.reference} “{doc.title}”" in digest.text
        assert f"https://countersign.test/o/acme/documents/{doc.reference}" in digest.text
    assert digest.link("/o/acme/notifications/preferences")
    with operator_work() as uow:
        beat = last_beat(uow.session, "mail_digest")
        assert beat is not None and beat.beat_at == clock.now()
        assert beat.detail["digests"] == 1

    # Later the same day: nothing more, even with a new notice waiting.
    clock.freeze(_at(0, 9))
    later = _claim(jason, "Taxi")
    deliver_mail(siti.org_id)
    assert send_digests() == 0
    deliver_mail(siti.org_id)
    assert len(mailbox.to(NURUL)) == 1

    # The next morning: only what came since the last digest.
    clock.freeze(_at(1, 1))
    assert send_digests() == 1
    deliver_mail(siti.org_id)
    second = mailbox.to(NURUL)[1]
    assert second.subject == (
        f"Your Countersign digest for {_written(DAY + timedelta(days=1))}: 1 notice"
    )
    assert later.reference in second.text
    assert all(doc.reference not in second.text for doc in claims)
    assert send_digests() == 0


def test_a_digest_lists_only_the_kinds_taken_by_mail_and_skips_a_quiet_day(app, people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    clock.freeze(_at(0, 0))  # 08:00 in Kuala Lumpur
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
    clock.freeze(_at(1, 1))
    _claim(siti, "Lunch")
    deliver_mail(siti.org_id)
    assert send_digests() == 0
    deliver_mail(siti.org_id)
    assert all("digest" not in m.subject for m in mailbox.to(NURUL))
