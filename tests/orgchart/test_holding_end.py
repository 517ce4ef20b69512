"""Ending a seat "today": the admin is asked first and told what changes; the seat is
still held until the end of today in the organization's zone, and resolution as of
tomorrow no longer finds it. At 23:30 UTC it is already tomorrow in Kuala Lumpur, so
"today" must be the organization's day, not UTC's."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from portal.core.clock import clock
from portal.domain.actor import Role
from portal.domain.graph import Grant, Grantee, GranteeKind
from portal.orgchart import routing, services
from tests.factories import sign_in

# 07:30 on 2 December in Kuala Lumpur; still 1 December in UTC.
LATE_UTC = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)
KL_TODAY = date(2026, 12, 2)
KL_TOMORROW = date(2026, 12, 3)


@pytest.fixture
def kl(make_org, make_member, globex):
    """A Kuala Lumpur organization: Nurul Aziz heads Finance; globex (UTC) beside it."""
    clock.freeze(LATE_UTC)
    org = make_org(
        "kl-test", "KL Test", base_currency="MYR", time_zone="Asia/Kuala_Lumpur", territory="MY"
    )
    admin = make_member(org, "Kay Admin", roles=(Role.ADMIN,))
    nurul = make_member(org, "Nurul Aziz")
    requester = make_member(org, "Rina Requester")
    unit = services.create_unit(admin.actor, code="FIN", name="Finance")
    head = services.create_position(
        admin.actor, code="FIN-HEAD", title="Head of Finance", unit_id=unit.id
    )
    holding = services.assign_position(
        admin.actor, member_id=nurul.member_id, position_id=head.id, valid_from=date(2026, 11, 1)
    )
    return org, admin, nurul, requester, head, holding


def _finds(actor, position_id: int, requester: int, on: date) -> tuple[int, ...]:
    grant = Grant(
        grantee=Grantee(kind=GranteeKind.POSITION, position=position_id),
        state="approved",
        on_vacancy="refuse",
    )
    [resolution] = routing.resolve_grants(actor, [(0, grant)], requester, on=on)
    return resolution.members


def _holders(actor, position_id: int, on: date | None = None) -> list[str]:
    return [h.name for h in services.get_chart(actor, as_of=on).positions[position_id].holders]


def test_a_seat_ended_today_is_held_until_the_end_of_the_organizations_day(kl):
    _org, admin, nurul, requester, head, holding = kl
    assert _finds(admin.actor, head.id, requester.member_id, KL_TOMORROW) == (nurul.member_id,)

    ended = services.end_holding(admin.actor, holding.id)

    # Today is Kuala Lumpur's 2 December, though UTC is still on the 1st.
    assert ended.valid_to == KL_TODAY
    assert services.get_chart(admin.actor).as_of == KL_TODAY
    assert _holders(admin.actor, head.id) == ["Nurul Aziz"]
    assert _finds(admin.actor, head.id, requester.member_id, KL_TODAY) == (nurul.member_id,)
    assert _holders(admin.actor, head.id, KL_TOMORROW) == []
    assert _finds(admin.actor, head.id, requester.member_id, KL_TOMORROW) == ()


def test_a_utc_organization_at_the_same_instant_ends_it_on_its_own_day(kl, globex, make_member):
    gus = globex.admin.actor
    unit = services.create_unit(gus, code="G-FIN", name="Globex finance")
    seat = services.create_position(gus, code="G-CFO", title="CFO", unit_id=unit.id)
    held = services.assign_position(
        gus, member_id=globex.admin.member_id, position_id=seat.id, valid_from=date(2026, 11, 1)
    )

    assert services.end_holding(gus, held.id).valid_to == date(2026, 12, 1)
    assert _holders(gus, seat.id, date(2026, 12, 2)) == []


def test_the_preview_says_who_stops_holding_what_and_when(kl):
    _org, admin, _nurul, _requester, head, holding = kl

    ending = services.preview_end_holding(admin.actor, holding.id)

    assert (ending.member_name, ending.position_title) == ("Nurul Aziz", "Head of Finance")
    assert (ending.last_day, ending.is_today, ending.time_zone) == (
        KL_TODAY,
        True,
        "Asia/Kuala_Lumpur",
    )
    assert ending.ends_at == datetime(2026, 12, 2, 16, 0, tzinfo=UTC)
    # Asking changes nothing.
    assert _holders(admin.actor, head.id, KL_TOMORROW) == ["Nurul Aziz"]


def test_ending_a_seat_from_the_chart_asks_first_then_ends_it(app, kl):
    _org, admin, _nurul, _requester, head, holding = kl
    browser, token = sign_in(app, admin)
    url = f"/o/kl-test/admin/chart/holdings/{holding.id}/end"

    chart = browser.get("/o/kl-test/admin/chart/").get_data(as_text=True)
    assert f'href="{url}"' in chart  # a link to the question, not a button that ends it

    asked = browser.get(url)
    assert asked.status_code == 200
    text = " ".join(re.sub(r"<[^>]+>", " ", asked.get_data(as_text=True)).split())
    assert (
        "Nurul Aziz will stop holding Head of Finance at the end of today, 2 December 2026 "
        "(Asia/Kuala_Lumpur)." in text
    )
    assert _holders(admin.actor, head.id, KL_TOMORROW) == ["Nurul Aziz"]

    # A post that names no day, or another day than the one shown, asks again.
    unconfirmed = browser.post(url, data={"csrf_token": token})
    assert unconfirmed.status_code == 200
    other_day = browser.post(
        url, data={"csrf_token": token, "last_day": "2026-12-05", "confirm": "2026-12-02"}
    )
    assert "at the end of 5 December 2026" in other_day.get_data(as_text=True)
    assert _holders(admin.actor, head.id, KL_TOMORROW) == ["Nurul Aziz"]

    done = browser.post(
        url, data={"csrf_token": token, "last_day": "2026-12-02", "confirm": "2026-12-02"}
    )

    assert done.status_code == 302
    assert _holders(admin.actor, head.id) == ["Nurul Aziz"]
    assert _holders(admin.actor, head.id, KL_TOMORROW) == []


def test_the_question_refuses_what_ending_would_refuse(app, kl):
    _org, admin, _nurul, _requester, head, holding = kl
    browser, token = sign_in(app, admin)
    url = f"/o/kl-test/admin/chart/holdings/{holding.id}/end"
    assert browser.get(url).status_code == 200

    before_start = browser.post(
        url,
        data={"csrf_token": token, "last_day": "2026-10-01", "confirm": "2026-10-01"},
        follow_redirects=True,
    )
    assert "The end date must not be before the start date." in before_start.get_data(as_text=True)
    # The calendar's last day (whose next day does not exist) is asked about, not a 500.
    last = browser.post(url, data={"csrf_token": token, "last_day": "9999-12-31"})
    assert last.status_code == 200
    assert "31 December 9999" in last.get_data(as_text=True)
    for bad in ("2026-13-01", "２０２６-12-02", "9" * 5000, "2026-12-02\x00"):
        # Refused, or (a day that reads as one) asked about again: never ended, never a 500.
        refused = browser.post(url, data={"csrf_token": token, "last_day": bad, "confirm": bad})
        assert refused.status_code in (200, 302, 400, 422)
    assert _holders(admin.actor, head.id, KL_TOMORROW) == ["Nurul Aziz"]
    assert browser.get("/o/kl-test/admin/chart/holdings/999999/end").status_code == 404
