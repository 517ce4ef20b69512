"""The notification preferences page: a table of kinds × channels with a label on every
box, the daily digest choice, saved as overrides of the defaults; reached from the
notifications page; bad posts get a clear answer and change nothing."""

from __future__ import annotations

import re

from sqlalchemy import select

from portal.core.uow import unit_of_work
from portal.domain.notice_preferences import Channel, NoticeKind
from portal.notifications.models import NoticePreference
from portal.notifications.queries import notice_preferences_of
from tests.factories import demo_browser

PAGE = "/o/acme/notifications/preferences"


def _boxes(html: str) -> dict[str, bool]:
    """Each checkbox by name: ticked or not."""
    return {
        m.group(2): "checked" in m.group(0)
        for m in re.finditer(r'<input type="checkbox" id="([^"]+)" name="([^"]+)"[^>]*>', html)
    }


def _stored(org_id: int, member_id: int):
    with unit_of_work(org_id) as uow:
        row = uow.session.scalars(
            select(NoticePreference).where(NoticePreference.member_id == member_id)
        ).first()
        return None if row is None else (row.channels, row.email_digest)


def test_the_page_shows_the_defaults_with_a_label_on_every_box(app, people):
    browser, _ = demo_browser(app, "siti")
    index = browser.get("/o/acme/notifications/").get_data(as_text=True)
    assert f'href="{PAGE}"' in index

    html = browser.get(PAGE).get_data(as_text=True)
    boxes = _boxes(html)
    assert boxes["assigned.email"] and boxes["assigned.in_app"]
    assert not boxes["document_moved.email"] and boxes["document_moved.in_app"]
    assert not boxes["email_digest"]
    assert "admin.email" not in boxes  # the admins' alerts are offered to admins only
    for box_id in re.findall(r'<input type="checkbox" id="([^"]+)"', html):
        assert f'<label for="{box_id}">' in html
    assert "By mail: A task's deadline has passed" in html.replace("&#39;", "'")
    assert "marked as read, so it never counts as new" in html

    admin, _ = demo_browser(app, "grace")
    assert "admin.email" in _boxes(admin.get(PAGE).get_data(as_text=True))


def test_saving_keeps_only_what_differs_from_the_defaults(app, people):
    siti = people("siti")
    browser, token = demo_browser(app, "siti")
    form = {
        "csrf_token": token,
        "assigned.in_app": "on",
        "due_soon.in_app": "on",
        "due_soon.email": "on",
        "overdue.in_app": "on",
        "overdue.email": "on",
        "document_moved.in_app": "on",
        "document_moved.email": "on",
        "escalated_away.in_app": "on",
        "cover.in_app": "on",
        "cover.email": "on",
        "email_digest": "on",
    }
    saved = browser.post(PAGE, data=form)
    assert saved.status_code == 303 and saved.headers["Location"].endswith(PAGE)
    page = browser.get(PAGE).get_data(as_text=True)
    assert "Your notification preferences are saved." in page
    boxes = _boxes(page)
    assert not boxes["assigned.email"] and boxes["document_moved.email"] and boxes["email_digest"]
    assert _stored(siti.org_id, siti.member_id) == (
        {"assigned": {"email": False}, "document_moved": {"email": True}},
        True,
    )
    # The admins' alerts, not offered to Siti, keep their defaults.
    assert notice_preferences_of(siti).channels[NoticeKind.ADMIN] == frozenset(Channel)

    # Back to the defaults: nothing is stored over them.
    defaults = {k: "on" for k in ("assigned.in_app", "assigned.email", "due_soon.in_app")}
    defaults |= {k: "on" for k in ("due_soon.email", "overdue.in_app", "overdue.email")}
    defaults |= {k: "on" for k in ("document_moved.in_app", "escalated_away.in_app")}
    defaults |= {k: "on" for k in ("cover.in_app", "cover.email")}
    browser.post(PAGE, data={"csrf_token": token, **defaults})
    assert _stored(siti.org_id, siti.member_id) == ({}, False)


def test_a_bad_post_gets_a_clear_answer_and_saves_nothing(app, people):
    siti = people("siti")
    browser, token = demo_browser(app, "siti")
    # Allowed first.
    assert (
        browser.post(PAGE, data={"csrf_token": token, "assigned.in_app": "on"}).status_code == 303
    )
    before = _stored(siti.org_id, siti.member_id)

    for bad, says in (
        ({"bogus.email": "on"}, "“bogus.email” is not a notification setting."),
        ({"admin.email": "on"}, "“admin.email” is not a notification setting."),
        ({"assigned.email": "yes"}, "can only be ticked or left empty"),
        ({"assigned.email": ["on", "on"]}, "was sent more than once"),
    ):
        answer = browser.post(PAGE, data={"csrf_token": token, **bad})
        assert answer.status_code == 422
        html = answer.get_data(as_text=True)
        assert says in html.replace("&#34;", '"'), html
        assert _stored(siti.org_id, siti.member_id) == before

    for raw in ("assigned.email=o%00n", "assigned.email=on%01"):
        answer = browser.post(
            PAGE,
            data=f"csrf_token={token}&{raw}",
            content_type="application/x-www-form-urlencoded",
        )
        assert answer.status_code == 400
    assert _stored(siti.org_id, siti.member_id) == before

    # Without the form's token nothing is saved either.
    assert browser.post(PAGE, data={"email_digest": "on"}).status_code == 400
    assert _stored(siti.org_id, siti.member_id) == before


def test_preferences_belong_to_the_member_in_their_organization(app, people, globex):
    siti, nurul = people("siti"), people("nurul")
    browser, token = demo_browser(app, "siti")
    browser.post(PAGE, data={"csrf_token": token, "email_digest": "on"})
    assert notice_preferences_of(siti).email_digest
    assert not notice_preferences_of(nurul).email_digest
    # Globex's address space is another organization's: not Siti's to reach.
    assert browser.get("/o/globex-test/notifications/preferences").status_code in (403, 404)
