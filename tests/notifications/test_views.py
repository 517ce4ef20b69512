"""The bell: delivered notifications listed newest first, each linking to its document,
marked read one at a time or all at once — and only by their own member."""

from __future__ import annotations

import re
from decimal import Decimal

from portal.core import outbox
from portal.documents import services as documents
from portal.documents import transitions
from portal.notifications import queries as notifications
from portal.notifications import services as notification_services
from tests.documents.test_detail_views import FIELDS
from tests.factories import demo_browser


def _notified(people):
    siti = people("siti")
    doc = documents.create_document(
        siti, kind="expense_claim", title="Hotel", amount=Decimal("300.00"), fields=FIELDS
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    # The notice, and the mail that tells Nurul of it (mail is on for tasks by default).
    assert outbox.dispatch_outbox(siti.org_id) == 2
    return doc


def test_a_delivered_notification_rings_the_bell_and_links_to_its_document(app, people):
    doc = _notified(people)
    nurul, _ = demo_browser(app, "nurul")
    home = nurul.get("/o/acme/").get_data(as_text=True)
    assert re.search(r'data-testid="unread-badge"[^>]*>1<', home)
    page = nurul.get("/o/acme/notifications/").get_data(as_text=True)
    assert f"{doc.reference} “Hotel”" in page
    assert "from Siti Aminah is waiting for your decision" in page
    [notice] = notifications.list_notifications(people("nurul"))
    # The link opens the notice (marking it read) on its way to the document.
    assert f'href="/o/acme/notifications/{notice.id}"' in page

    siti, _ = demo_browser(app, "siti")  # her own submission tells her nothing
    assert "unread-badge" not in siti.get("/o/acme/").get_data(as_text=True)


def test_notifications_are_marked_read_by_their_member_only(app, people):
    _notified(people)
    _notified(people)
    nurul = people("nurul")
    newer, older = notifications.list_notifications(nurul)

    browser, token = demo_browser(app, "nurul")
    done = browser.post(
        "/o/acme/notifications/read", data={"id": str(older.id), "csrf_token": token}
    )
    assert done.status_code == 302
    assert notifications.count_unread_notifications(nurul) == 1  # hers to mark: one left

    siti, siti_token = demo_browser(app, "siti")
    siti.post("/o/acme/notifications/read", data={"id": str(newer.id), "csrf_token": siti_token})
    assert notifications.count_unread_notifications(nurul) == 1  # not hers to mark

    assert browser.post("/o/acme/notifications/read", data={"id": str(newer.id)}).status_code == 400
    assert notifications.count_unread_notifications(nurul) == 1  # no token, no change

    done = browser.post(
        "/o/acme/notifications/read", data={"id": str(newer.id), "csrf_token": token}
    )
    assert done.status_code == 302
    assert notifications.count_unread_notifications(nurul) == 0
    assert "unread-badge" not in browser.get("/o/acme/").get_data(as_text=True)


def test_mark_all_as_read_clears_the_bell(app, people):
    _notified(people)
    _notified(people)
    nurul = people("nurul")
    assert notifications.count_unread_notifications(nurul) == 2
    browser, token = demo_browser(app, "nurul")
    browser.post("/o/acme/notifications/read", data={"csrf_token": token})
    assert notifications.count_unread_notifications(nurul) == 0
    assert [n.read for n in notifications.list_notifications(nurul)] == [True, True]


def test_the_inbox_page_rings_the_same_bell_from_its_own_transaction(app, people):
    doc = _notified(people)
    nurul = people("nurul")
    browser, _ = demo_browser(app, "nurul")

    inbox = browser.get("/o/acme/inbox/").get_data(as_text=True)

    assert doc.reference in inbox
    assert re.search(r'data-testid="unread-badge"[^>]*>1<', inbox)
    notification_services.mark_notifications_read(nurul)
    again = browser.get("/o/acme/inbox/").get_data(as_text=True)
    assert "unread-badge" not in again
