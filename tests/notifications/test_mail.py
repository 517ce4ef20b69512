"""Notices by mail, through the outbox to a real SMTP server, in the demo organization
(globex present and never mailed): by default a task is mailed and a document's move is
not; a member's preferences decide per kind and channel; the mail is in the reader's
language with times in their zone, linking to the document and to the preferences; a
rolled-back transition mails nothing; a committed one is delivered through a refusal of
the server; an address the server refuses becomes a dead letter with its reason."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from portal.accounts.services.people import deactivate_member, set_account_active, set_user_locale
from portal.accounts.services.settings import set_my_time_zone
from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import OutboxEvent, add_events
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.domain.notice_preferences import Channel, NoticeKind, settings_of
from portal.notifications import queries as notifications
from portal.notifications.models import Notification
from portal.notifications.services import save_notice_preferences
from tests.conftest import deliver_mail
from tests.factories import system_actor

CLAIM = {"category": "travel", "expense_date": "2026-11-20"}
NURUL, SITI, ZAINAL = "nurul@acme.example", "siti@acme.example", "zainal@acme.example"


def _claim(siti, title: str = "Taxi to client"):
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal("45.60"), fields=CLAIM
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    return doc


def _prefer(actor, kind: NoticeKind, *, in_app: bool = True, email: bool = True, digest=False):
    chosen = settings_of(None, digest)
    channels = dict(chosen.channels)
    channels[kind] = frozenset(
        c for c, on in ((Channel.IN_APP, in_app), (Channel.EMAIL, email)) if on
    )
    save_notice_preferences(actor, type(chosen)(channels, digest))


def _about(mailbox, address: str, reference: str):
    return [m for m in mailbox.to(address) if reference in m.subject]


def _notice_rows(org_id: int, member_id: int) -> list[Notification]:
    with unit_of_work(org_id) as uow:
        return list(
            uow.session.scalars(select(Notification).where(Notification.member_id == member_id))
        )


def test_a_task_is_mailed_by_default_and_a_documents_move_is_not(app, people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    deliver_mail(siti.org_id)

    [mail] = mailbox.to(NURUL)
    assert mail.subject == f"Waiting for your decision: {doc.reference} Taxi to client"
    assert f"{doc.reference} “Taxi to client” (RM45.60) from Siti Aminah" in mail.text
    assert "is waiting for your decision at “Pending review”" in mail.text
    assert mail.message["Content-Language"] == "en"

    # Nurul sends it back: Siti hears of it in the portal, and not by mail.
    transitions.transition_document(
        nurul, doc.reference, "reject", seen_state="pending_review", comment="receipt missing"
    )
    deliver_mail(siti.org_id)
    assert mailbox.to(SITI) == []
    assert [n.code for n in notifications.list_notifications(siti)] == ["notice_document_moved"]
    assert mailbox.to("gus") == [] and all(
        "globex" not in str(m.recipients) for m in mailbox.received
    )


def test_a_member_who_turns_mail_off_for_tasks_still_sees_the_notice(app, people, mailbox):
    siti, nurul, jason = people("siti"), people("nurul"), people("jason")
    # Allowed first: with the defaults, Jason's claim reaches Nurul by mail.
    first = _claim(jason, "Parking")
    deliver_mail(siti.org_id)
    assert len(_about(mailbox, NURUL, first.reference)) == 1

    _prefer(nurul, NoticeKind.ASSIGNED, email=False)
    doc = _claim(siti)
    deliver_mail(siti.org_id)
    assert _about(mailbox, NURUL, doc.reference) == []
    [notice] = [n for n in notifications.list_notifications(nurul) if n.reference == doc.reference]
    assert notice.needs_attention


def test_a_notice_turned_off_in_the_portal_is_written_already_read(app, people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    _prefer(nurul, NoticeKind.ASSIGNED, in_app=False)
    doc = _claim(siti)
    deliver_mail(siti.org_id)

    [row] = _notice_rows(siti.org_id, nurul.member_id)
    assert row.read_at == row.created_at
    assert notifications.count_unread_notifications(nurul) == 0
    # Mail is a channel of its own: still on.
    assert len(_about(mailbox, NURUL, doc.reference)) == 1


def _due_soon(org_id: int, doc, members: list[int], due_at: datetime) -> None:
    with unit_of_work(org_id) as uow:
        add_events(
            uow.session,
            [
                (
                    "notify.due_soon",
                    {
                        "document_id": doc.id,
                        "reference": doc.reference,
                        "state": "pending_review",
                        "members": members,
                        "due_at": due_at.isoformat(),
                    },
                )
            ],
        )


def test_a_reminder_is_in_the_readers_language_with_the_due_time_in_their_zone(
    app, people, mailbox
):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    doc = _claim(siti)
    deliver_mail(siti.org_id)
    mailbox.clear()
    set_user_locale(nurul.user_id, "zh")  # the organization's zone: Asia/Kuala_Lumpur
    set_my_time_zone(zainal, "UTC")  # English, his own zone
    due = datetime.fromisoformat("2026-12-03T06:00:00+00:00")
    _due_soon(siti.org_id, doc, [nurul.member_id, zainal.member_id], due)
    deliver_mail(siti.org_id)

    [in_zh] = mailbox.to(NURUL)
    assert in_zh.message["Content-Language"] == "zh"
    assert "Nurul Huda，您好：" in in_zh.text
    assert "“待审核”" in in_zh.text  # the flow's own label, in Chinese
    assert "2026年12月3日 下午2:00 (Asia/Kuala_Lumpur)" in in_zh.text
    assert "06:00" not in in_zh.text and "6:00" not in in_zh.text

    [in_utc] = mailbox.to(ZAINAL)
    assert in_utc.subject == f"Due soon: {doc.reference} Taxi to client"
    said = " ".join(in_utc.text.split())  # Babel puts a narrow space before "am"
    assert "Due by: 3 Dec 2026, 6:00 am (UTC)" in said
    assert "is due by 3 Dec 2026, 6:00 am." in said


def test_the_mail_links_to_the_document_and_to_the_preferences(app, people, mailbox):
    siti = people("siti")
    doc = _claim(siti)
    deliver_mail(siti.org_id)
    [mail] = mailbox.to(NURUL)
    assert mail.link("/o/acme/documents/") == f"/o/acme/documents/{doc.reference}"
    assert mail.link("/o/acme/notifications/preferences") == "/o/acme/notifications/preferences"
    assert 'href="https://countersign.test/o/acme/notifications/preferences"' in mail.html
    assert f'href="https://countersign.test/o/acme/documents/{doc.reference}"' in mail.html

    # The links lead there for the signed-in member.
    from tests.factories import demo_browser

    browser, _ = demo_browser(app, "nurul")
    assert browser.get(mail.link("/o/acme/documents/")).status_code == 200
    assert browser.get(mail.link("/o/acme/notifications/preferences")).status_code == 200


def test_a_rolled_back_transition_mails_nothing(app, people, mailbox, monkeypatch):
    siti = people("siti")
    doc = documents.create_document(
        siti, kind="expense_claim", title="Hotel", amount=Decimal("320.00"), fields=CLAIM
    )
    write = transitions.write_decision

    def write_then_fail(*args, **kwargs):
        assert write(*args, **kwargs)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(transitions, "write_decision", write_then_fail)
    with pytest.raises(RuntimeError):
        transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    assert deliver_mail(siti.org_id) == 0
    assert mailbox.received == []


def test_a_committed_transition_is_mailed_even_when_the_first_attempt_is_refused(
    app, people, mailbox
):
    siti = people("siti")
    clock.freeze(clock.now())
    doc = _claim(siti)
    mailbox.refuse_next("451 4.3.0 Mailbox busy, try again later")
    deliver_mail(siti.org_id)
    assert mailbox.to(NURUL) == []
    with unit_of_work(siti.org_id) as uow:
        mail = uow.session.scalars(
            select(OutboxEvent).where(OutboxEvent.topic == "mail.notice")
        ).one()
        assert mail.attempts == 1 and "451" in (mail.last_error or "")
        assert mail.dispatched_at is None and mail.dead_at is None

    clock.advance(outbox.FIRST_RETRY)
    deliver_mail(siti.org_id)
    [received] = mailbox.to(NURUL)
    assert doc.reference in received.subject
    deliver_mail(siti.org_id)  # delivered once: nothing more
    assert len(mailbox.to(NURUL)) == 1


def test_an_address_the_server_refuses_becomes_a_dead_letter_with_the_reason(app, people, mailbox):
    siti = people("siti")
    mailbox.refuse_address(NURUL, "550 5.1.1 No such user here")
    clock.freeze(clock.now())
    _claim(siti)
    for _ in range(outbox.MAX_ATTEMPTS):
        deliver_mail(siti.org_id)
        clock.advance(outbox.LONGEST_WAIT)
    with unit_of_work(siti.org_id) as uow:
        mail = uow.session.scalars(
            select(OutboxEvent).where(OutboxEvent.topic == "mail.notice")
        ).one()
    assert mail.dead_at is not None and mail.dispatched_at is None
    assert "550" in (mail.last_error or "") and "No such user here" in (mail.last_error or "")
    assert mailbox.received == []


def test_another_organizations_member_is_never_notified_nor_mailed(app, people, globex, mailbox):
    siti, nurul = people("siti"), people("nurul")
    doc = _claim(siti)
    deliver_mail(siti.org_id)
    mailbox.clear()
    # An acme event that names a globex member (a bug elsewhere, or a forged row).
    _due_soon(
        siti.org_id, doc, [nurul.member_id, globex.admin.member_id], datetime.now().astimezone()
    )
    deliver_mail(siti.org_id, globex.org.id)
    assert [m.recipients for m in mailbox.received] == [(NURUL,)]
    assert _notice_rows(globex.org.id, globex.admin.member_id) == []
    with unit_of_work(siti.org_id) as uow:
        assert uow.session.scalars(select(OutboxEvent.dead_at)).all() == [None] * len(
            uow.session.scalars(select(OutboxEvent.id)).all()
        )


def test_a_member_who_left_or_whose_account_is_disabled_is_not_mailed(app, people, mailbox):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    doc = _claim(siti)
    deliver_mail(siti.org_id)
    assert len(mailbox.to(NURUL)) == 1  # allowed first
    mailbox.clear()

    # Mail already waiting when it happens: composed at sending time, it goes nowhere.
    with unit_of_work(siti.org_id) as uow:
        [row] = uow.session.scalars(
            select(Notification.id).where(Notification.member_id == nurul.member_id)
        ).all()
        add_events(
            uow.session,
            [
                ("mail.notice", {"member_id": nurul.member_id, "notification_id": row}),
                ("mail.notice", {"member_id": zainal.member_id, "notification_id": row}),
            ],
        )
    deactivate_member(system_actor_of(siti), nurul.member_id)
    set_account_active(ZAINAL, False)
    deliver_mail(siti.org_id)
    assert mailbox.received == []
    _due_soon(siti.org_id, doc, [nurul.member_id], datetime.now().astimezone())
    deliver_mail(siti.org_id)
    assert mailbox.received == []


def system_actor_of(actor):
    from portal.accounts.queries import find_organization

    org = find_organization(actor.org_slug)
    assert org is not None
    return system_actor(org)


def test_mail_waits_for_its_due_time_like_any_event(app, people, mailbox):
    # A sanity check of the retry clock used above: nothing is sent before it is due.
    siti = people("siti")
    clock.freeze(clock.now())
    mailbox.refuse_next()
    _claim(siti)
    deliver_mail(siti.org_id)
    clock.advance(outbox.FIRST_RETRY - timedelta(seconds=1))
    deliver_mail(siti.org_id)
    assert mailbox.to(NURUL) == []
