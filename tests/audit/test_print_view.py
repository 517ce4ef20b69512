"""The print view of a document's record: the organization's name, the reference, the
document, every decision, the chain's verification and when it was printed (in the
reader's zone); a print stylesheet for A4 and Letter; no inline style or script (CSP)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from portal.core.clock import clock
from tests.audit.timelines import the_long_way, urls
from tests.factories import demo_browser

STATIC = Path(__file__).resolve().parents[2] / "portal" / "static"


def test_the_print_view_holds_the_whole_record(app, people, globex):
    doc = the_long_way(people)
    # 03:04 UTC is 11:04 in Kuala Lumpur, where the demo organization reads its times.
    clock.freeze(datetime(2026, 12, 3, 3, 4, tzinfo=UTC))
    ravi, _ = demo_browser(app, "ravi")
    answer = ravi.get(urls(doc.reference)["print"])
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)

    assert re.search(r'data-testid="print-org">Acme Trading Sdn Bhd<', html)
    assert f"Approval record of {doc.reference}" in html
    assert "printed 3 Dec 2026, 11:04\u202fam by Ravi" in html
    assert "Client visit, Penang" in html and "RM480.00" in html
    seqs = re.findall(r'data-testid="trail-decision" data-seq="(\d+)"', html)
    assert seqs == ["1", "2", "3", "4", "5", "6"]
    assert "The chain verified when this page was read: 6 decisions" in html
    assert "Chain head: decision 6, hash " in html
    # Every hash in full on paper.
    assert len(re.findall(r'class="hash-full print-only">[0-9a-f]{64}<', html)) == 6
    # The print stylesheet, and a Print button a script file shows (no inline script).
    assert "css/audit/print.css" in html and "js/print-button.js" in html
    assert 'class="js-print primary" hidden' in html
    assert " style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    # Nothing of the other organization.
    assert "Globex" not in html


def test_the_print_stylesheet_fits_a4_and_letter_without_the_navigation():
    css = (STATIC / "css/audit/print.css").read_text()
    assert "@page" in css and "@media print" in css
    printed = css.split("@media print", 1)[1]
    for chrome in (".topbar", ".footer", ".no-print"):
        assert chrome in printed
    # The margins leave the narrower sheet (A4, 210 mm) at least 180 mm of line.
    page = re.search(r"@page\s*{[^}]*margin:\s*(\d+)mm\s+(\d+)mm", css)
    assert page and 210 - 2 * int(page.group(2)) >= 180
    script = (STATIC / "js/print-button.js").read_text()
    assert "window.print()" in script


def test_the_print_view_is_for_auditors_and_admins_only(app, people, globex):
    doc = the_long_way(people)
    aisha, _ = demo_browser(app, "aisha")
    assert aisha.get(urls(doc.reference)["print"]).status_code == 200
    for name in ("siti", "nurul"):
        browser, _ = demo_browser(app, name)
        assert browser.get(urls(doc.reference)["print"]).status_code == 404
