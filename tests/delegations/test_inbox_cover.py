"""The inbox under cover, in the demo organization (Nurul reviews the Sales claims and
approves Jason's purchases; Grace reviews Hannah's claims): while Nurul is away, Hannah
sees Nurul's open tasks "on behalf of Nurul Huda", counted in the badge and the home
page, filterable, and decided from the inbox through the same pipeline. A cover for one
kind brings only that kind; the delegate's own documents never come; the end of the
window takes them away. Globex is there, and sees nothing."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents.models import Decision
from portal.home.queries import home_summary
from portal.inbox import queries
from tests.delegations.covers import (
    DAY,
    local_moment,
    move,
    set_cover,
    start_today,
    submitted_claim,
    submitted_purchase,
)
from tests.factories import actor_of, demo_browser, demo_people

INBOX = "/o/acme/inbox"


@pytest.fixture
def people(app, globex):
    return demo_people()


def _listed(html: str) -> list[str]:
    body = re.search(r'<tbody id="inbox-rows".*?</tbody>', html, re.S)
    assert body, "no inbox table body"
    return re.findall(r'<tr[^>]*data-reference="([^"]+)"', body.group(0))


def _row(html: str, reference: str) -> str:
    found = re.search(rf'<tr[^>]*data-reference="{re.escape(reference)}".*?</tr>', html, re.S)
    assert found, f"no row for {reference}"
    return found.group(0)


def test_the_delegate_sees_the_delegators_tasks_on_their_behalf_and_counts_them(app, people):
    siti, jason, nurul, hannah = people("siti"), people("jason"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti, "Team lunch")
    purchase = submitted_purchase(jason, "Printer paper")
    assert [r.reference for r in queries.open_tasks(hannah).rows] == []
    set_cover(nurul, hannah, today, today + 2 * DAY, reason="Annual leave")

    inbox = queries.open_tasks(hannah)

    assert {r.reference for r in inbox.rows} == {claim.reference, purchase.reference}
    assert {r.on_behalf_name for r in inbox.rows} == {"Nurul Huda"}
    assert {r.on_behalf_of for r in inbox.rows} == {nurul.member_id}
    assert inbox.covering == ((nurul.member_id, "Nurul Huda"),)
    # The badge, the inbox and the home page count what is listed: a document once.
    assert inbox.total == len(inbox.rows) == 2
    assert queries.count_open_tasks(hannah) == 2
    assert queries.count_waiting(hannah) == 2
    home = home_summary(hannah)
    assert home.tasks.open == 2
    assert {t.reference for t in home.next_tasks} == {claim.reference, purchase.reference}
    assert {t.on_behalf_name for t in home.next_tasks} == {"Nurul Huda"}
    assert {t.on_behalf_name for t in home_summary(nurul).next_tasks} == {None}
    # Nurul's own inbox is unchanged: the tasks are still theirs.
    assert {r.reference for r in queries.open_tasks(nurul).rows} == {
        claim.reference,
        purchase.reference,
    }
    assert all(r.on_behalf_of is None for r in queries.open_tasks(nurul).rows)

    browser, _ = demo_browser(app, "hannah")
    html = browser.get(f"{INBOX}/").get_data(as_text=True)
    assert set(_listed(html)) == {claim.reference, purchase.reference}
    row = _row(html, claim.reference)
    assert 'data-via="delegation"' in row and "on behalf of Nurul Huda" in row
    assert 'data-testid="inbox-badge"' in html and ">2</span>" in html
    assert 'data-testid="inbox-filter"' in html
    assert f'<option value="{nurul.member_id}"' in html


def test_the_filter_narrows_to_mine_or_to_one_delegator_and_the_refresh_keeps_it(app, people):
    siti, nurul, zainal, hannah = (
        people("siti"),
        people("nurul"),
        people("zainal"),
        people("hannah"),
    )
    grace = people("grace")
    today = start_today()
    nurul_claim = submitted_claim(siti, "Team lunch")
    hannah_claim = submitted_claim(hannah, "Training course")  # Grace reviews it
    set_cover(nurul, hannah, today, today + DAY)
    set_cover(zainal, hannah, today, today + DAY)
    # Grace holds the review of Hannah's own claim: that one never comes to Hannah.
    set_cover(grace, hannah, today, today + DAY)

    everything = queries.open_tasks(hannah)
    assert [r.reference for r in everything.rows] == [nurul_claim.reference]
    assert hannah_claim.reference not in {r.reference for r in everything.rows}
    assert [m for m, _ in everything.covering] == sorted(
        [nurul.member_id, zainal.member_id, grace.member_id]
    )
    assert queries.open_tasks(hannah, only=hannah.member_id).rows == []
    assert [r.reference for r in queries.open_tasks(hannah, only=nurul.member_id).rows] == [
        nurul_claim.reference
    ]
    assert queries.open_tasks(hannah, only=zainal.member_id).rows == []
    # Filtered or not, the badge counts every row.
    assert queries.open_tasks(hannah, only=hannah.member_id).total == 1
    # A member id nobody covers (or another organization's) narrows to nothing.
    assert queries.open_tasks(hannah, only=siti.member_id).rows == []

    browser, _ = demo_browser(app, "hannah")
    mine = browser.get(f"{INBOX}/?show=mine").get_data(as_text=True)
    assert _listed(mine) == []
    assert '<option value="mine" selected>' in mine
    for_nurul = browser.get(f"{INBOX}/?show={nurul.member_id}").get_data(as_text=True)
    assert _listed(for_nurul) == [nurul_claim.reference]
    # The 30-second refresh asks with the same filter.
    assert f'hx-get="/o/acme/inbox/rows?show={nurul.member_id}"' in for_nurul
    refreshed = browser.get(f"{INBOX}/rows?show=mine").get_data(as_text=True)
    assert _listed(refreshed) == []
    # Nonsense in the filter is no filter, never an error; control characters and huge
    # values are refused before any view, as everywhere.
    for junk in ("x" * 200, "١٢", "-1", "99999999999999999999"):
        response = browser.get(f"{INBOX}/?show={junk}")
        assert response.status_code == 200
        assert _listed(response.get_data(as_text=True)) == [nurul_claim.reference]
    for junk in ("%00", "mine%0a", "x" * 100_000):
        assert browser.get(f"{INBOX}/?show={junk}").status_code == 400


def test_a_cover_for_one_kind_brings_only_that_kind(app, people):
    siti, jason, nurul, hannah = people("siti"), people("jason"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti)
    purchase = submitted_purchase(jason)
    set_cover(nurul, hannah, today, today, kind="purchase_request")

    inbox = queries.open_tasks(hannah)

    assert [r.reference for r in inbox.rows] == [purchase.reference]
    assert claim.reference not in {r.reference for r in inbox.rows}
    assert inbox.total == queries.count_open_tasks(hannah) == 1


def test_a_delegate_who_also_covers_the_requester_is_not_offered_their_document(app, people):
    siti, jason, nurul, hannah = people("siti"), people("jason"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti)
    purchase = submitted_purchase(jason)
    set_cover(nurul, hannah, today, today)
    assert {r.reference for r in queries.open_tasks(hannah).rows} == {
        claim.reference,
        purchase.reference,
    }
    # Standing in for Siti too, Hannah may not act on Siti's claim on anyone's behalf
    # (``delegation_own_document``): the inbox and its count leave it out.
    set_cover(siti, hannah, today, today)

    inbox = queries.open_tasks(hannah)

    assert [r.reference for r in inbox.rows] == [purchase.reference]
    assert inbox.total == queries.count_open_tasks(hannah) == 1


def test_a_document_the_delegate_holds_a_task_on_shows_once_as_their_own(app, people):
    # Daniel and Mei Ling are both admins: both hold the category check of an approved
    # claim. Covering Daniel adds nothing to count twice.
    siti, nurul, zainal = people("siti"), people("nurul"), people("zainal")
    daniel, meiling = people("daniel"), people("meiling")
    today = start_today()
    claim = submitted_claim(siti)
    claim = move(zainal, move(nurul, claim, "review"), "approve")
    before = queries.open_tasks(meiling)
    set_cover(daniel, meiling, today, today)

    inbox = queries.open_tasks(meiling)

    assert (
        [r.reference for r in inbox.rows] == [claim.reference] == [r.reference for r in before.rows]
    )
    assert inbox.rows[0].on_behalf_of is None
    assert inbox.total == queries.count_open_tasks(meiling) == 1


def test_the_cover_counts_the_organizations_day_and_ends_at_its_midnight(app, people):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    first, last = today + DAY, today + 2 * DAY
    claim = submitted_claim(siti)
    set_cover(nurul, hannah, first, last)
    assert queries.open_tasks(hannah).rows == []

    # 00:05 on the first day in Kuala Lumpur: still the day before in UTC.
    clock.freeze(local_moment(first, 0, 5))
    assert clock.now().date() < first
    assert [r.reference for r in queries.open_tasks(hannah).rows] == [claim.reference]
    # 23:55 on the last day there: UTC's day is the same, and the cover still holds.
    clock.freeze(local_moment(last, 23, 55))
    assert [r.reference for r in queries.open_tasks(hannah).rows] == [claim.reference]
    # Five minutes later it is over there, though UTC's day is still the last one.
    clock.freeze(local_moment(last + DAY, 0, 0))
    assert clock.now().date() == last
    assert queries.open_tasks(hannah).rows == []
    assert queries.count_waiting(hannah) == 0


def test_a_bulk_approve_from_the_inbox_decides_on_the_delegators_behalf(app, people):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    claim = submitted_claim(siti, "Team lunch")
    cover = set_cover(nurul, hannah, today, today + DAY)

    browser, token = demo_browser(app, "hannah")
    response = browser.post(
        f"{INBOX}/bulk",
        data={
            "csrf_token": token,
            "items": f"{claim.reference}|{claim.state}",
            "transition": "approve",
            "comment": "",
            "show": str(nurul.member_id),
        },
    )

    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    assert "done → Reviewed" in " ".join(html.split())
    with unit_of_work(siti.org_id) as uow:
        last = uow.session.scalars(
            select(Decision).where(Decision.document_id == claim.id).order_by(Decision.seq.desc())
        ).first()
    assert last is not None
    assert (last.actor_id, last.authority_member_id, last.via, last.delegation_id) == (
        hannah.member_id,
        nurul.member_id,
        "delegation",
        cover,
    )
    # The filter survived the post.
    assert f'<option value="{nurul.member_id}" selected>' in html


def test_globex_sees_nothing_of_acmes_covers(app, people, globex):
    siti, nurul, hannah = people("siti"), people("nurul"), people("hannah")
    today = start_today()
    submitted_claim(siti)
    set_cover(nurul, hannah, today, today + DAY)
    gus = actor_of(globex.org.slug, globex.admin.email)

    assert queries.open_tasks(gus).rows == []
    assert queries.open_tasks(gus).covering == ()
    assert queries.count_waiting(gus) == 0
    # Naming an acme member in globex's filter narrows to nothing.
    assert queries.open_tasks(gus, only=nurul.member_id).rows == []
