"""An inbox row's HTML: every value arrives as text, whatever it contains."""

from __future__ import annotations

from typing import Any

import pytest

from portal.inbox.row_html import row_html

PLAIN: dict[str, Any] = {
    "reference": "EXP-2026-00001",
    "value": "EXP-2026-00001|pending_review",
    "select": "Select EXP-2026-00001",
    "url": "/o/acme/documents/EXP-2026-00001",
    "title": "Team lunch",
    "requester": "Siti",
    "amount": "MYR 42.00",
    "state": "Pending review",
    "tone": "pending",
    "age": "2 days",
    "due": "overdue",
    "due_text": "overdue",
    "due_title": "21/11/2026, 09:00",
    "checked": True,
}
TEXTS = [key for key, value in PLAIN.items() if isinstance(value, str) and key != "due"]


def test_a_plain_row_places_each_value():
    html = str(row_html(**PLAIN))
    assert html.startswith('<tr class="overdue" data-reference="EXP-2026-00001">')
    assert 'id="pick-EXP-2026-00001" aria-label="Select EXP-2026-00001" checked>' in html
    assert '<a href="/o/acme/documents/EXP-2026-00001">EXP-2026-00001</a>' in html
    assert "<td>Team lunch</td><td>Siti</td>" in html
    # The state as a chip in its role's tone, like on every other page.
    assert '<span class="tag state-chip tone-pending">Pending review</span>' in html
    assert '<span class="tag danger" title="21/11/2026, 09:00">overdue</span>' in html


@pytest.mark.parametrize("field", TEXTS)
def test_markup_in_any_value_is_escaped(field):
    html = str(row_html(**{**PLAIN, field: '<img src=x onerror="alert(1)">'}))
    assert "<img" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


def test_the_due_cell_says_nothing_later_or_today():
    assert '<span class="muted">—</span>' in row_html(**{**PLAIN, "due": None})
    later = str(row_html(**{**PLAIN, "due": "later", "due_text": "3 Dec 2026"}))
    assert '<span class="tag">3 Dec 2026</span>' in later and 'class="overdue"' not in later
    assert '<span class="tag warn"' in row_html(**{**PLAIN, "due": "today"})
    assert " checked" not in row_html(**{**PLAIN, "checked": False})
