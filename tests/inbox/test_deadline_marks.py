"""An inbox row handed over by a passing deadline says so, escaped like every other
value of the row; a row of the member's own grant says nothing of the kind."""

from __future__ import annotations

from typing import Any

from portal.inbox.row_html import row_html

PLAIN: dict[str, Any] = {
    "reference": "EXP-2026-00001",
    "value": "EXP-2026-00001|pending_review",
    "select": "Select EXP-2026-00001",
    "url": "/o/acme/documents/EXP-2026-00001",
    "title": "Client visit",
    "requester": "Siti Aminah",
    "amount": "RM480.00",
    "state": "Pending review",
    "tone": "pending",
    "age": "2 days",
    "due": "overdue",
    "due_text": "overdue",
    "due_title": "1 Dec 2026, 10:00",
    "checked": False,
}


def test_a_row_handed_over_says_how_and_from_whom():
    html = str(row_html(**PLAIN, via="escalation", via_text="escalated to you from Nurul Huda"))
    assert (
        '<td>Client visit<span class="tag warn inbox-via" data-via="escalation">'
        "escalated to you from Nurul Huda</span></td>"
    ) in html


def test_a_row_of_the_members_own_grant_says_nothing_of_it():
    assert "inbox-via" not in str(row_html(**PLAIN))
    assert "inbox-via" not in str(row_html(**PLAIN, via="grant", via_text=""))


def test_a_name_in_the_mark_is_text_never_markup():
    html = str(
        row_html(
            **PLAIN, via='"><script>', via_text='escalated to you from <img src=x onerror="1">'
        )
    )
    assert "<img" not in html and "<script>" not in html
    assert "&lt;img src=x onerror=&quot;1&quot;&gt;" in html
