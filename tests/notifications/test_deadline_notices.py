"""What the deadline notices say on the notifications page (the sweep's events, written
here as the sweep writes them): a reminder and a breach with the due time in the
reader's zone, an escalation to the reader and above them, a reassignment to the new
holder and the old, and the admins' alerts; each mailed with a subject that says what
happened."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from portal.accounts.services.settings import set_my_time_zone
from portal.core.outbox import add_events
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.notifications import queries as notifications
from tests.conftest import deliver_mail
from tests.factories import demo_browser

CLAIM = {"category": "travel", "expense_date": "2026-11-20"}
NOTICES = "/o/acme/notifications/"
DUE = "2026-12-03T06:00:00+00:00"  # 2 pm in Kuala Lumpur


def _notices(html: str) -> list[str]:
    items = re.findall(r'<li class="notice[^"]*"[^>]*>(.*?)</li>', html, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", item).split()) for item in items]


def _event(org_id: int, topic: str, doc, members: list[int], **extra: Any) -> None:
    payload = {
        "document_id": doc.id,
        "reference": doc.reference,
        "state": "pending_review",
        "members": members,
        **extra,
    }
    with unit_of_work(org_id) as uow:
        add_events(uow.session, [(f"notify.{topic}", payload)])


def _claim(siti):
    doc = documents.create_document(
        siti, kind="expense_claim", title="Taxi to client", amount=Decimal("45.60"), fields=CLAIM
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    return doc


def _page(app, name: str) -> list[str]:
    browser, _ = demo_browser(app, name)
    return _notices(browser.get(NOTICES).get_data(as_text=True))


def test_a_reminder_and_a_breach_name_the_due_time_in_the_readers_zone(app, people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    _event(siti.org_id, "due_soon", doc, [nurul.member_id], due_at=DUE)
    _event(siti.org_id, "overdue", doc, [nurul.member_id], due_at=DUE, level=0)
    deliver_mail(siti.org_id)

    overdue, due_soon, _assigned = _page(app, "nurul")
    start = f"{doc.reference} “Taxi to client” (RM45.60) from Siti Aminah"
    assert due_soon.startswith(f"new {start} is waiting for your decision at “Pending review”")
    assert "it is due by 3 Dec 2026, 2:00 pm." in due_soon
    assert f"{start} was due by 3 Dec 2026, 2:00 pm and is still waiting" in overdue
    subjects = sorted(m.subject for m in mailbox.to("nurul@acme.example"))
    assert subjects == [
        f"Due soon: {doc.reference} Taxi to client",
        f"Overdue: {doc.reference} Taxi to client",
        f"Waiting for your decision: {doc.reference} Taxi to client",
    ]

    # A member reading in their own zone sees the same deadline there.
    set_my_time_zone(nurul, "UTC")
    assert "it is due by 3 Dec 2026, 6:00 am." in " ".join(_page(app, "nurul")[1].split())


def test_escalation_and_reassignment_say_who_from_and_to_whom(app, people, mailbox):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    doc = _claim(siti)
    _event(
        siti.org_id,
        "escalated",
        doc,
        [zainal.member_id],
        from_members=[nurul.member_id],
        reason="breach",
        decision=2,
    )
    _event(
        siti.org_id,
        "escalated_away",
        doc,
        [nurul.member_id],
        to_members=[zainal.member_id],
        decision=2,
    )
    _event(
        siti.org_id,
        "reassigned",
        doc,
        [zainal.member_id, nurul.member_id],
        from_member=nurul.member_id,
        to_members=[zainal.member_id],
        decision=3,
    )
    deliver_mail(siti.org_id)

    reassigned, escalated = _page(app, "zainal")
    assert "was reassigned to you from Nurul Huda and is waiting for your decision" in reassigned
    assert "was escalated to you from Nurul Huda" in escalated
    assert "Its deadline passed without a decision." in escalated
    old, away, _assigned = _page(app, "nurul")
    assert "was reassigned from you to Zainal Abidin." in old
    assert "was escalated to Zainal Abidin. You can still decide it." in away

    assert sorted(m.subject.split(":")[0] for m in mailbox.to("zainal@acme.example")) == [
        "Escalated to you",
        "Reassigned to you",
    ]
    # An escalation above Nurul is for her information: not mailed by default.
    assert sorted(m.subject.split(":")[0] for m in mailbox.to("nurul@acme.example")) == [
        "Reassigned from you",
        "Waiting for your decision",
    ]


def test_the_admins_hear_of_a_gap_and_of_a_refused_automatic_step(app, people, mailbox):
    siti, grace = people("siti"), people("grace")
    doc = _claim(siti)
    _event(
        siti.org_id,
        "escalation_gap",
        doc,
        [grace.member_id],
        from_members=[people("nurul").member_id],
        gap={"reason": "escalation_bound"},
        decision=2,
    )
    _event(
        siti.org_id,
        "auto_refused",
        doc,
        [grace.member_id],
        transition="review",
        code="exclusive_approval",
    )
    deliver_mail(siti.org_id)
    refused, gap = _page(app, "grace")
    assert "nobody above could take it over" in gap
    assert "It has been escalated as far as the flow allows." in gap
    assert "The automatic “Mark reviewed” on" in refused
    assert "it still waits at “Pending review”" in refused
    # The refusal's own message needs the step's name, which the event does not keep.
    assert "The flow's rules refused it (exclusive_approval)." in refused.replace("&#39;", "'")
    assert sorted(m.subject.split(":")[0] for m in mailbox.to("grace@acme.example")) == [
        "Automatic step refused",
        "Nobody to escalate to",
    ]
    assert [n.code for n in notifications.list_notifications(siti)] == []


def test_a_real_escalation_by_the_sweep_is_mailed_to_the_new_holder_once(app, people, mailbox):
    from datetime import timedelta

    from portal.core.clock import clock
    from portal.deadlines.jobs import sweep_now
    from tests.deadlines.sweeping import START, submitted

    siti = people("siti")
    clock.freeze(START)
    doc = submitted(siti)  # a purchase request: 48 hours, then up a seat
    deliver_mail(siti.org_id)
    [waiting] = mailbox.to("nurul@acme.example")
    assert waiting.subject.startswith("Waiting for your decision:")

    clock.advance(timedelta(hours=49))
    sweep_now()
    sweep_now()  # a second sweep changes nothing
    deliver_mail(siti.org_id)
    escalated = [m for m in mailbox.received if m.subject.startswith("Escalated to you:")]
    assert [m.recipients for m in escalated] == [("zainal@acme.example",)]
    assert doc.reference in escalated[0].subject
    assert "was escalated to you from Nurul Huda" in escalated[0].text
    assert "Its deadline passed without a decision." in escalated[0].text
    # Nurul keeps her task and hears of it in the portal, not by mail.
    assert [m.subject.split(":")[0] for m in mailbox.to("nurul@acme.example")] == [
        "Waiting for your decision"
    ]
    away = [n for n in notifications.list_notifications(people("nurul")) if n.code.endswith("away")]
    assert len(away) == 1
