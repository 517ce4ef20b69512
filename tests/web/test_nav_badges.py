"""The nav's two badges — the inbox's number and the bell's — counted together, once per
page, in one unit of work; globex's tasks and notices never count; a count that fails
leaves the page whole, without badges."""

from __future__ import annotations

import re
from decimal import Decimal

from portal.core import outbox
from portal.documents import services as documents
from portal.documents import transitions
from portal.inbox import queries as inbox_queries
from tests.documents.test_detail_views import FIELDS, _units_of_work
from tests.factories import demo_browser

INBOX_BADGE = re.compile(r'data-testid="inbox-badge"[^>]*>(\d+)<')
UNREAD_BADGE = re.compile(r'data-testid="unread-badge"[^>]*>(\d+)<')


def _waiting_for_nurul(people, globex, title: str):
    siti = people("siti")
    doc = documents.create_document(
        siti, kind="expense_claim", title=title, amount=Decimal("80.00"), fields=FIELDS
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    outbox.dispatch_outbox(siti.org_id)
    return doc


def test_a_page_counts_both_badges_in_one_unit_of_work(app, people, globex, monkeypatch):
    _waiting_for_nurul(people, globex, "Taxi")
    _waiting_for_nurul(people, globex, "Hotel")
    nurul, _ = demo_browser(app, "nurul")

    page, opened = _units_of_work(monkeypatch, lambda: nurul.get("/o/acme/"))
    html = page.get_data(as_text=True)

    assert page.status_code == 200
    assert INBOX_BADGE.search(html).group(1) == "2"  # type: ignore[union-attr]
    assert UNREAD_BADGE.search(html).group(1) == "2"  # type: ignore[union-attr]
    assert opened == 2  # the home page's own read, then the two badges together


def test_a_badge_count_that_fails_leaves_the_page_whole_without_badges(
    app, people, globex, monkeypatch
):
    _waiting_for_nurul(people, globex, "Taxi")
    nurul, _ = demo_browser(app, "nurul")
    assert INBOX_BADGE.search(nurul.get("/o/acme/").get_data(as_text=True))

    def broken(*_args, **_kwargs):
        raise RuntimeError("the count is unavailable")

    monkeypatch.setattr(inbox_queries, "_waiting_in", broken)
    page = nurul.get("/o/acme/")
    html = page.get_data(as_text=True)

    assert page.status_code == 200
    assert not INBOX_BADGE.search(html) and not UNREAD_BADGE.search(html)
    assert 'href="/o/acme/inbox/"' in html
