"""The cover and handover notices, in the demo organization (Nurul reviews the Sales
claims; while she is away Hannah covers for her): the delegate is told when cover is
set, begins, ends or is revoked; Nurul, when it is over, gets the decisions taken on her
behalf — exactly those, each linked; a handover is told to both holders. Each in the
reader's language, mailed through the real SMTP test server. Begin and end follow the
organization's midnight (Kuala Lumpur), each announced once however often the job runs;
globex's covers follow globex's own day and acme's run leaves them alone."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal

import pytest
from babel.dates import format_interval
from sqlalchemy import func, select

from portal.accounts.services.people import set_user_locale
from portal.core.clock import clock
from portal.core.outbox import add_events
from portal.core.uow import unit_of_work
from portal.delegations.models import Delegation
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Decision
from portal.notifications import queries as notifications
from portal.notifications.jobs import announce_covers, announce_covers_in
from tests.conftest import deliver_mail
from tests.delegations.covers import (
    CLAIM_FIELDS,
    DAY,
    ZONE,
    local_moment,
    move,
    revoke_cover,
    set_cover,
    start_today,
    submitted_claim,
)
from tests.factories import demo_browser, demo_people

NOTICES = "/o/acme/notifications/"
HANNAH, NURUL = "hannah@acme.example", "nurul@acme.example"


@pytest.fixture
def people(app, globex):
    return demo_people()


def _page(app, name: str) -> str:
    browser, _ = demo_browser(app, name)
    html = browser.get(NOTICES).get_data(as_text=True)
    found = re.search(r'<ul class="plain-list notices".*?</section>', html, re.S)
    assert found, "no notifications listed"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(0)).split())


def _codes(actor) -> list[str]:
    return [n.code for n in notifications.list_notifications(actor)]


def _event(org_id: int, topic: str, **payload) -> None:
    with unit_of_work(org_id) as uow:
        add_events(uow.session, [(f"notify.{topic}", payload)])


def _cover(org_id: int, delegation_id: int) -> Delegation:
    with unit_of_work(org_id) as uow:
        row = uow.session.scalar(select(Delegation).where(Delegation.id == delegation_id))
        assert row is not None
        uow.session.expunge(row)
        return row


def _days(first: date, last: date, locale: str = "en_MY") -> str:
    # As a page reads once its spaces are folded (Babel puts thin ones round the dash).
    return " ".join(format_interval(first, last, "yMMMd", locale=locale).split())


def test_cover_set_is_told_to_the_delegate_in_their_language_and_mailed(app, people, mailbox):
    nurul, hannah, grace = people("nurul"), people("hannah"), people("grace")
    today = start_today()
    first, last = today + 6 * DAY, today + 17 * DAY
    own = set_cover(nurul, hannah, first, last, kind="expense_claim", reason="annual leave")
    _event(nurul.org_id, "cover_set", members=[hannah.member_id], delegation_id=own)
    deliver_mail(nurul.org_id)

    said = _page(app, "hannah")
    assert (
        f"Nurul Huda set cover: you decide their “Expense claim” documents on their behalf, "
        f"{_days(first, last)} (annual leave)."
    ) in said
    [mail] = mailbox.to(HANNAH)
    assert mail.subject == "Cover set: you decide for Nurul Huda"
    assert _days(first, last) in " ".join(mail.text.split())
    assert mail.link("/o/acme/delegations") == "/o/acme/delegations/"

    # An admin sets cover for Zainal, who is off sick: both people are told who set it.
    mailbox.clear()
    zainal = people("zainal")
    by_admin = set_cover(zainal, hannah, today, today + 2 * DAY, reason="sick", set_by=grace)
    _event(
        nurul.org_id,
        "cover_set",
        members=[hannah.member_id, zainal.member_id],
        delegation_id=by_admin,
    )
    set_user_locale(hannah.user_id, "zh")
    deliver_mail(nurul.org_id)
    in_zh = _page(app, "hannah")
    # Until the lead translates, the sentence falls back to English; the days are
    # written the Chinese way, the names as they are.
    assert "Grace Lee" in in_zh and "Zainal Abidin" in in_zh and "sick" in in_zh
    assert _days(today, today + 2 * DAY, "zh_Hans_MY") in in_zh
    assert "“费用报销”" in in_zh  # the kind, by the flow's own name in Chinese
    [zh_mail] = mailbox.to(HANNAH)
    assert zh_mail.message["Content-Language"] == "zh"
    assert "Zainal Abidin" in zh_mail.subject
    assert "Grace Lee set cover for you: Hannah Ong decides on your behalf" in _page(app, "zainal")
    assert [m.subject for m in mailbox.to("zainal@acme.example")] == [
        "Cover set for you: Hannah Ong"
    ]
    # Nobody else heard of it; globex never does.
    assert _codes(people("siti")) == [] and _codes(grace) == []
    assert all("globex" not in str(m.recipients) for m in mailbox.received)


def test_begin_and_end_follow_the_organizations_midnight_each_once(
    app, people, globex, make_member, mailbox
):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    first, last = today + DAY, today + 3 * DAY
    cover = set_cover(nurul, hannah, first, last, reason="annual leave")
    # Globex keeps UTC: the same days begin eight hours later there.
    gus, other = globex.admin, make_member(globex.org, "Olga Other")
    theirs = set_cover(gus.actor, other.actor, first, last, reason="conference")

    clock.freeze(local_moment(today, 23, 59))
    assert announce_covers() == 0
    clock.freeze(local_moment(first, 0, 1))  # 16:01 UTC the day before: acme's day only
    assert announce_covers() == 1
    assert announce_covers() == 0  # run twice: once
    assert _cover(nurul.org_id, cover).start_noticed_at is not None
    assert _cover(globex.org.id, theirs).start_noticed_at is None
    deliver_mail(nurul.org_id)
    assert _codes(hannah) == ["notice_cover_started"]
    assert (
        f"Your cover for Nurul Huda has begun: you decide on their behalf until the end of "
        f"{last.day} " in _page(app, "hannah")
    )
    [begun] = mailbox.to(HANNAH)
    assert begun.subject == "Your cover for Nurul Huda has begun"

    # While it runs, Hannah reviews one of Siti's claims on Nurul's behalf; Nurul decides
    # another herself (not on anyone's behalf: not in the summary).
    covered = move(hannah, submitted_claim(siti, "Team lunch"), "review")
    move(nurul, submitted_claim(siti, "Parking"), "review")

    clock.freeze(local_moment(last, 23, 59))
    assert announce_covers_in(nurul.org_id, ZONE) == 0
    assert _cover(globex.org.id, theirs).start_noticed_at is None  # acme's run only
    clock.freeze(local_moment(last + DAY, 0, 1))
    assert announce_covers() == 3  # acme: ended and summary; globex: begun (its day)
    assert announce_covers() == 0
    deliver_mail(nurul.org_id, globex.org.id)

    assert _codes(hannah)[0] == "notice_cover_ended"
    assert f"Your cover for Nurul Huda ended ({_days(first, last)})" in _page(app, "hannah")
    [summary] = [n for n in notifications.list_notifications(nurul) if "cover" in n.code]
    assert summary.code == "notice_cover_summary"
    assert summary.cover is not None
    assert [d.reference for d in summary.cover.decisions] == [covered.reference]
    said = _page(app, "nurul")
    assert (
        f"While you were away ({_days(first, last)}), Hannah Ong decided 1 document on your "
        f"behalf: {covered.reference} “Team lunch”: “Mark reviewed”"
    ) in said
    [mail] = [m for m in mailbox.to(NURUL) if m.subject.startswith("Decided")]
    assert mail.subject == "Decided on your behalf by Hannah Ong"
    assert mail.link("/o/acme/documents/") == f"/o/acme/documents/{covered.reference}"
    assert f"{covered.reference} “Team lunch”: “Mark reviewed”" in mail.text
    # Globex's delegate heard of their own cover, in their own day; nothing of acme's.
    assert _codes(other.actor) == ["notice_cover_started"]


def test_a_revoked_cover_is_told_once_and_summarised_only_if_used(app, people, mailbox):
    siti, nurul, hannah, zainal = (
        people("siti"),
        people("nurul"),
        people("hannah"),
        people("zainal"),
    )
    today = start_today()
    used = set_cover(nurul, hannah, today, today + 5 * DAY, reason="annual leave")
    unused = set_cover(zainal, hannah, today + 2 * DAY, today + 5 * DAY, reason="training")
    # Set on their first day: cover_set said it is on; no second notice begins it.
    assert announce_covers() == 0
    assert _cover(nurul.org_id, used).start_noticed_at is not None
    covered = move(hannah, submitted_claim(siti, "Hotel"), "review")

    clock.advance(timedelta(hours=1))
    revoke_cover(nurul, used)
    revoke_cover(zainal, unused)
    _event(nurul.org_id, "cover_revoked", members=[hannah.member_id], delegation_id=used)
    # Revoked: no "ended" to the delegate; a summary only where something was decided.
    assert announce_covers() == 1
    assert announce_covers() == 0
    assert _cover(nurul.org_id, unused).end_noticed_at is not None
    deliver_mail(nurul.org_id)
    assert _codes(hannah) == ["notice_cover_revoked"]
    assert f"Nurul Huda revoked your cover ({_days(today, today + 5 * DAY)})" in _page(
        app, "hannah"
    )
    assert [c for c in _codes(nurul) if "cover" in c] == ["notice_cover_summary"]
    assert covered.reference in _page(app, "nurul")
    assert [c for c in _codes(zainal) if "cover" in c] == []  # his was never used
    assert [m.subject for m in mailbox.to(HANNAH)] == ["Your cover for Nurul Huda was revoked"]


def test_a_handover_is_told_to_the_receiver_with_its_reason_and_to_the_holder(app, people, mailbox):
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    draft = documents.create_document(
        siti,
        kind="expense_claim",
        title="Taxi to client",
        amount=Decimal("45.60"),
        fields=CLAIM_FIELDS,
    )
    # The history row that records the handover carries its reason as the comment (any
    # decision of the document stands in for it here).
    doc = transitions.transition_document(
        siti, draft.reference, "submit", seen_state="draft", comment="on leave tomorrow"
    ).document
    with unit_of_work(siti.org_id) as uow:
        seq = uow.session.scalar(
            select(func.max(Decision.seq)).where(Decision.document_id == doc.id)
        )
    _event(
        siti.org_id,
        "task_handed_over",
        members=[nurul.member_id, zainal.member_id],
        document_id=doc.id,
        reference=doc.reference,
        state="pending_review",
        from_member=nurul.member_id,
        to_members=[zainal.member_id],
        decision=seq,
    )
    deliver_mail(siti.org_id)
    start = f"{doc.reference} “Taxi to client” (RM45.60) from Siti Aminah"
    assert (
        f"Nurul Huda handed {start} to you; it is waiting for your decision at “Pending review”."
        in _page(app, "zainal")
    )
    assert "“on leave tomorrow”" in _page(app, "zainal")
    assert f"You handed {start} to Zainal Abidin." in _page(app, "nurul")
    assert [m.subject for m in mailbox.to("zainal@acme.example")] == [
        f"Handed to you: {doc.reference} Taxi to client"
    ]
    set_user_locale(zainal.user_id, "zh")
    in_zh = _page(app, "zainal")
    assert doc.reference in in_zh and "Nurul Huda" in in_zh and "待审核" in in_zh


def test_a_notice_naming_another_organizations_cover_says_only_its_keys(
    app, people, globex, make_member
):
    hannah = people("hannah")
    other = make_member(globex.org, "Olga Other")
    theirs = set_cover(globex.admin.actor, other.actor, start_today(), start_today(), reason="x")
    _event(hannah.org_id, "cover_set", members=[hannah.member_id], delegation_id=theirs)
    _event(hannah.org_id, "cover_summary", members=[hannah.member_id], delegation_id=10**12)
    deliver_mail(hannah.org_id)
    said = _page(app, "hannah")
    assert "Cover was set for you." in said and "A cover for you ended." in said
    assert "Gus" not in said and "Olga" not in said and "conference" not in said


@pytest.mark.postgres_only
def test_two_jobs_at_once_announce_a_beginning_once(backend, committed):
    """On PostgreSQL with real commits: four runs at the organization's midnight, at
    once; the conditional UPDATE lets one of them stamp the cover and write its notice."""
    import threading
    import uuid
    from datetime import UTC, datetime

    from portal.accounts import services as accounts
    from portal.bench.cleanup import purge_organizations
    from portal.core.outbox import OutboxEvent
    from portal.domain.actor import SystemActor
    from portal.provisioning import provision_organization
    from tests.factories import actor_of

    if not backend.postgres:
        pytest.skip("the race is PostgreSQL's")
    slug = f"cover-race-{uuid.uuid4().hex[:8]}"
    org = provision_organization(slug, "Cover Race Ltd", base_currency="MYR")
    try:
        system = SystemActor(org_id=org.id, org_slug=slug)
        for n in (0, 1):
            accounts.create_user(f"{slug}-{n}@race.test", f"Person {n}", "race-pass-123")
            accounts.enrol_member(system, email=f"{slug}-{n}@race.test", roles=[])
        away, covering = (actor_of(slug, f"{slug}-{n}@race.test") for n in (0, 1))
        clock.freeze(datetime(2026, 12, 7, 12, tzinfo=UTC))
        cover = set_cover(away, covering, date(2026, 12, 8), date(2026, 12, 9))
        clock.freeze(datetime(2026, 12, 8, 0, 1, tzinfo=UTC))
        barrier = threading.Barrier(4)
        written: list[int | BaseException] = []

        def run() -> None:
            barrier.wait()
            try:
                written.append(announce_covers_in(org.id, "UTC"))
            except BaseException as exc:  # collected and asserted on below
                written.append(exc)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(written, key=str) == [0, 0, 0, 1]
        with unit_of_work(org.id) as uow:
            topics = list(
                uow.session.scalars(
                    select(OutboxEvent.topic).where(OutboxEvent.topic.like("notify.cover%"))
                )
            )
        assert topics == ["notify.cover_started"]
        assert _cover(org.id, cover).start_noticed_at is not None
    finally:
        clock.unfreeze()
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"{slug}-%")
