"""The cover pages over HTTP: ``/delegations`` lists what I lend and hold and sets cover
(refusals beside their field, with a 4xx, never a 500); revoking goes through a
confirmation; ``/delegations/all`` exists for admins only; the inbox and the home page
say who covers whom. Globex is there too, and its members are nobody here."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import func, select
from werkzeug.datastructures import MultiDict

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.delegations import services
from portal.delegations.models import Delegation
from portal.domain.actor import Role
from portal.domain.delegation import CoverRequest
from tests.factories import sign_in

ZONE = "Asia/Kuala_Lumpur"
NOW = datetime(2026, 12, 7, 20, 0, tzinfo=UTC)  # 8 December, 04:00 in Kuala Lumpur
TODAY = date(2026, 12, 8)
DAY = timedelta(days=1)
PAGE = "/o/acme-cover/delegations/"
ALL = "/o/acme-cover/delegations/all"


@pytest.fixture
def acme(app, make_org, make_member, globex):
    clock.freeze(NOW)
    org = make_org("acme-cover", "Acme Cover", time_zone=ZONE)
    return {
        "org": org,
        "admin": make_member(org, "Aisha Admin", roles=(Role.ADMIN,)),
        "daniel": make_member(org, "Daniel Tan"),
        "mei": make_member(org, "Mei Ling Chen"),
        "ravi": make_member(org, "Ravi Kumar"),
        "gus": globex.admin,
    }


def _form(acme, **changes: str) -> dict[str, str]:
    return {
        "delegate": str(acme["mei"].member_id),
        "kind": "",
        "valid_from": "2026-12-08",
        "valid_to": "2026-12-19",
        "reason": "Annual leave",
    } | changes


def _count(org_id: int) -> int:
    with unit_of_work(org_id) as uow:
        return int(uow.session.scalar(select(func.count()).select_from(Delegation)) or 0)


def _field_error(html: str, name: str) -> str:
    """The message beside field ``name``, checked to be wired to its input."""
    found = re.search(rf'<p class="field-error" id="{name}-error">(.*?)</p>', html, re.S)
    assert found, f"no error beside {name}"
    control = re.search(rf'<(?:input|select)[^>]*\bname="{name}"[^>]*>', html)
    assert control and f"{name}-error" in control.group(0)
    assert 'aria-invalid="true"' in control.group(0)
    return found.group(1)


def _cover(acme, delegator: str = "daniel", delegate: str = "mei", **changes):
    asked = CoverRequest(
        delegator=0,
        delegate=acme[delegate].member_id,
        kind=None,
        valid_from=TODAY,
        valid_to=date(2026, 12, 19),
        reason="Annual leave",
    )
    return services.set_cover(acme[delegator].actor, replace(asked, **changes))


def test_the_page_offers_the_form_in_the_organizations_days(app, acme):
    browser, _ = sign_in(app, acme["daniel"])
    answer = browser.get(PAGE)
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "Both days included" in html and ZONE in html
    assert re.search(
        r'<input[^>]*name="valid_from"[^>]*type="date"|type="date"[^>]*name="valid_from"', html
    )
    assert 'min="2026-12-08"' in html  # the organization's today, not UTC's 7th
    assert '<option value="">All kinds</option>' in html and ">Expense claim<" in html
    assert 'maxlength="500"' in html
    picker = re.search(r'<select[^>]*name="delegate".*?</select>', html, re.S)
    assert picker is not None
    assert "Mei Ling Chen" in picker.group(0) and "Ravi Kumar" in picker.group(0)
    assert "Daniel Tan" not in picker.group(0) and "Gus Globex" not in picker.group(0)
    for name in ("delegate", "kind", "valid_from", "valid_to", "reason"):
        assert re.search(rf'<label for="{name}">', html), name


def test_a_member_sets_cover_and_sees_it_listed(app, acme):
    browser, token = sign_in(app, acme["daniel"])
    answer = browser.post(PAGE, data=_form(acme, kind="expense_claim") | {"csrf_token": token})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(PAGE)
    html = browser.get(PAGE).get_data(as_text=True)
    assert "Mei Ling Chen covers for you from" in html
    row = re.search(r'<tr data-delegation-id="\d+">.*?</tr>', html, re.S)
    assert row is not None
    assert "Mei Ling Chen" in row.group(0) and "Expense claim" in row.group(0)
    assert 'data-status="active"' in row.group(0) and "Revoke" in row.group(0)
    # The delegate sees it among the covers they hold, without a revoke link.
    other, _ = sign_in(app, acme["mei"])
    held = other.get(PAGE).get_data(as_text=True)
    assert "Daniel Tan" in held and "/revoke" not in held


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"valid_from": "2026-12-07"}, "valid_from", "cannot start in the past"),
        ({"valid_to": "2026-12-01"}, "valid_to", "cannot come before"),
        ({"valid_to": "2028-01-01"}, "valid_to", "at most 366 days"),
        ({"valid_from": "٢٠٢٦-١٢-٠٨"}, "valid_from", "must be a date"),
        ({"valid_to": "2026-02-30"}, "valid_to", "must be a date"),
        ({"valid_from": ""}, "valid_from", "must be a date"),
        ({"delegate": "9" * 5000}, "delegate", "member of this organization"),
        ({"delegate": "١٢"}, "delegate", "member of this organization"),
        ({"delegate": ""}, "delegate", "member of this organization"),
        ({"kind": "timesheet"}, "kind", "kinds of document"),
        ({"kind": "k" * 5000}, "kind", "kinds of document"),
        ({"reason": "  "}, "reason", "Say why"),
        ({"reason": "x" * 501}, "reason", "at most 500 characters"),
    ],
)
def test_a_refusal_is_shown_beside_its_field_and_nothing_is_written(
    app, acme, changes, field, words
):
    browser, token = sign_in(app, acme["daniel"])
    answer = browser.post(PAGE, data=_form(acme, **changes) | {"csrf_token": token})
    assert answer.status_code == 422
    assert words in _field_error(answer.get_data(as_text=True), field)
    assert _count(acme["org"].id) == 0


def test_oneself_and_another_organizations_member_are_refused_beside_the_picker(app, acme):
    browser, token = sign_in(app, acme["daniel"])
    for member in (acme["daniel"], acme["gus"]):
        answer = browser.post(
            PAGE, data=_form(acme, delegate=str(member.member_id)) | {"csrf_token": token}
        )
        assert answer.status_code == 422
        _field_error(answer.get_data(as_text=True), "delegate")
        assert "Gus Globex" not in answer.get_data(as_text=True)
    assert _count(acme["org"].id) == 0


@pytest.mark.parametrize("value", ["\x00", "leave\x00", "x" * 100_000])
def test_control_characters_and_huge_values_are_refused_not_crashed_on(app, acme, value):
    browser, token = sign_in(app, acme["daniel"])
    for name in ("delegate", "kind", "valid_from", "reason"):
        answer = browser.post(PAGE, data=_form(acme, **{name: value}) | {"csrf_token": token})
        assert 400 <= answer.status_code < 500, (name, answer.status_code)
    assert _count(acme["org"].id) == 0


def test_a_repeated_field_takes_the_first_value_only(app, acme):
    browser, token = sign_in(app, acme["daniel"])
    repeated = [
        ("delegate", str(acme["ravi"].member_id)),
        ("valid_from", "bad"),
        ("csrf_token", token),
    ]
    data = MultiDict([*_form(acme).items(), *repeated])
    answer = browser.post(PAGE, data=data)
    assert answer.status_code == 303
    [line] = services.covers_page(acme["daniel"].actor).lent
    assert line.row.delegate_id == acme["mei"].member_id


def test_without_the_csrf_token_nothing_is_set(app, acme):
    browser, _ = sign_in(app, acme["daniel"])
    assert browser.post(PAGE, data=_form(acme)).status_code == 400
    assert _count(acme["org"].id) == 0


# --- revoking ------------------------------------------------------------------------------


def test_revoking_asks_first_then_stamps_the_cover(app, acme):
    cover = _cover(acme)
    browser, token = sign_in(app, acme["daniel"])
    url = f"{PAGE}{cover.id}/revoke"
    confirm = browser.get(url)
    assert confirm.status_code == 200
    html = confirm.get_data(as_text=True)
    assert "Revoke this cover?" in html and "Mei Ling Chen" in html
    assert f'action="{url}"' in html and 'data-testid="revoke-confirm"' in html
    assert _count(acme["org"].id) == 1  # asking changed nothing

    answer = browser.post(url, data={"csrf_token": token})
    assert answer.status_code == 303
    listed = browser.get(PAGE).get_data(as_text=True)
    assert "is revoked" in listed and 'data-status="revoked"' in listed
    # Twice: it is over (409), and the confirmation says so too.
    assert browser.post(url, data={"csrf_token": token}).status_code == 409
    assert browser.get(url).status_code == 409


def test_someone_elses_or_another_organizations_cover_does_not_exist(app, acme, make_member):
    cover = _cover(acme)
    url = f"{PAGE}{cover.id}/revoke"
    for person in (acme["ravi"], acme["mei"]):
        browser, token = sign_in(app, person)
        assert browser.get(url).status_code == 404
        assert browser.post(url, data={"csrf_token": token}).status_code == 404
    # Globex's admin, in their own organization, meets nothing under acme's id.
    browser, token = sign_in(app, acme["gus"])
    assert browser.get(f"/o/globex-test/delegations/{cover.id}/revoke").status_code == 404
    # An id no route could hold.
    owner, token = sign_in(app, acme["daniel"])
    assert owner.get(f"{PAGE}{'9' * 5000}/revoke").status_code == 404
    assert owner.get(f"{PAGE}١٢/revoke").status_code == 404
    assert services.covers_page(acme["daniel"].actor).lent[0].row.revoked_at is None


# --- every cover (admins) ------------------------------------------------------------------


def test_the_admins_view_is_not_there_for_members(app, acme):
    browser, token = sign_in(app, acme["daniel"])
    assert browser.get(ALL).status_code == 404
    data = _form(acme) | {"delegator": str(acme["ravi"].member_id), "csrf_token": token}
    assert browser.post(ALL, data=data).status_code == 404
    assert _count(acme["org"].id) == 0
    assert ALL not in browser.get(PAGE).get_data(as_text=True)


def test_an_admin_sees_every_cover_and_sets_one_for_an_absent_member(app, acme):
    lent = _cover(acme)
    browser, token = sign_in(app, acme["admin"])
    html = browser.get(ALL).get_data(as_text=True)
    assert f'data-delegation-id="{lent.id}"' in html
    assert re.search(r'<select[^>]*name="delegator"', html)

    data = _form(acme, delegate=str(acme["ravi"].member_id)) | {
        "delegator": str(acme["mei"].member_id),
        "reason": "Sick leave",
        "csrf_token": token,
    }
    answer = browser.post(ALL, data=data)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(ALL)
    listed = browser.get(ALL).get_data(as_text=True)
    assert "Ravi Kumar covers for Mei Ling Chen" in listed
    [held] = services.covers_page(acme["ravi"].actor).held
    assert held.row.created_by == acme["admin"].member_id

    # A refusal names the absent member's field.
    data["delegator"] = str(acme["gus"].member_id)
    refused = browser.post(ALL, data=data)
    assert refused.status_code == 422
    _field_error(refused.get_data(as_text=True), "delegator")


# --- the banners ---------------------------------------------------------------------------


def test_the_inbox_and_home_say_who_covers_whom_while_it_lasts(app, acme):
    _cover(acme)
    daniel, _ = sign_in(app, acme["daniel"])
    mei, _ = sign_in(app, acme["mei"])
    ravi, _ = sign_in(app, acme["ravi"])
    for page in ("/o/acme-cover/", "/o/acme-cover/inbox/"):
        mine = daniel.get(page).get_data(as_text=True)
        assert "Mei Ling Chen covers for you until Dec 19, 2026." in mine, page
        assert f'href="{PAGE}"' in mine
        theirs = mei.get(page).get_data(as_text=True)
        assert "You cover for Daniel Tan until Dec 19, 2026" in theirs, page
        assert 'data-testid="cover-banner"' not in ravi.get(page).get_data(as_text=True)

    clock.freeze(NOW + 12 * DAY)  # 20 December there: the cover ended
    for page in ("/o/acme-cover/", "/o/acme-cover/inbox/"):
        assert 'data-testid="cover-banner"' not in daniel.get(page).get_data(as_text=True)
