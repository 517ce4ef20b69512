"""The audit home page over HTTP, ``/o/acme/audit/``: the filter in the query string, the
results with sortable headings and pages, each bad value named beside its field (left
out, the rest still searched) and never a 500; a 404 to anyone but admins and auditors;
the way there from the top bar (auditors) and the home page. Globex is there too."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.audit.search_world import WORD
from tests.audit.search_world import world as world
from tests.factories import demo_browser, sign_in

PAGE = "/o/acme/audit/"


def _refs(html: str) -> list[str]:
    return re.findall(r'<tr data-reference="([^"]+)">', html)


def _error_beside(html: str, name: str) -> str:
    found = re.search(rf'<p class="field-error" id="{name}-error">(.*?)</p>', html, re.S)
    assert found, f"no error beside {name}"
    control = re.search(rf'<(?:input|select)[^>]*\bname="{name}"[^>]*>', html)
    assert control and f"{name}-error" in control.group(0)
    assert 'aria-invalid="true"' in control.group(0)
    return unescape(found.group(1))


def test_the_auditor_searches_and_reads_the_results(app, world):
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(
        PAGE, query_string={"text": WORD, "requester_id": world.person("siti").member_id}
    )
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert _refs(html) == [world.reviewed.reference, world.rejected.reference]
    assert f'href="/o/acme/audit/documents/{world.rejected.reference}"' in html
    assert "Siti Aminah" in html and "Rejected" in html and "1,250.00" in html
    # The filter stays in the form, and the page says how days are read.
    assert re.search(r'<input id="reference" name="reference"[^>]* maxlength="32" ', html)
    siti_id = world.person("siti").member_id
    assert f'<option value="{siti_id}" selected>Siti Aminah' in html
    assert (
        "Asia/Kuala_Lumpur" in html and "When the document entered the state it is in now." in html
    )
    # Sorting: the current column says so; its link turns it around; the filter rides along.
    assert 'aria-sort="descending"' in html
    heading = re.search(r'<th scope="col" aria-sort="descending">\s*<a href="([^"]+)"', html)
    assert heading and "sort=created" in unescape(heading.group(1))
    assert "text=Zephyr" in unescape(heading.group(1))
    # The exports carry the same filter, and the stall analytics are a link away.
    csv_link = re.search(r'href="([^"]*export\.csv[^"]*)"', html)
    assert csv_link and "requester_id=" in unescape(csv_link.group(1))
    assert "/o/acme/audit/stalls" in html
    assert "Gus Globex" not in html and "Globex" not in html


def test_an_admin_searches_too(app, world):
    browser, _ = demo_browser(app, "aisha")
    html = browser.get(PAGE, query_string={"state": "discarded"}).get_data(as_text=True)
    assert _refs(html) == [world.discarded.reference]
    assert "Discarded" in html


def test_sorting_and_paging_live_in_the_query_string(app, world):
    browser, _ = demo_browser(app, "ravi")
    html = browser.get(PAGE, query_string={"sort": "amount"}).get_data(as_text=True)
    assert _refs(html) == [
        world.purchase.reference,
        world.reviewed.reference,
        world.rejected.reference,
    ]
    assert 'aria-sort="ascending"' in html
    assert '<input type="hidden" name="sort" value="amount">' in html


def test_a_page_past_the_end_says_so_and_links_to_the_last(app, world):
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(PAGE, query_string={"page": "9", "text": WORD})
    assert answer.status_code == 200
    html = unescape(answer.get_data(as_text=True))
    assert "There is no page 9: these results fill 1 page." in html
    assert re.search(r'<a href="/o/acme/audit/\?text=Zephyr">Go to the last page \(1\)</a>', html)
    assert _refs(html) == []


@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        ({"amount_min": "abc"}, "amount_min", "for example 1234.50"),
        ({"amount_min": "１２３"}, "amount_min", "digits 0–9"),
        ({"amount_max": "١٢٣"}, "amount_max", "digits 0–9"),
        ({"amount_min": "9" * 900}, "amount_min", "below"),
        (
            {"created_from": "2026-12-09", "created_to": "2026-12-01"},
            "created_to",
            "before it starts",
        ),
        ({"decided_from": "yesterday"}, "decided_from", "YYYY-MM-DD"),
        ({"sort": "<b>salary</b>"}, "sort", "cannot be sorted by “<b>salary</b>”"),
        ({"requester_id": "<script>"}, "requester_id", "Choose a member"),
        ({"page": "0"}, "page", "whole number"),
    ],
)
def test_a_bad_value_is_named_beside_its_field_and_the_rest_still_searches(
    app, world, args, field, words
):
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(PAGE, query_string={**args, "kind": "purchase_request"})
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "<b>salary</b>" not in html and "<script>" not in html  # escaped, never markup
    assert 'data-testid="audit-refusals"' in html
    if field not in ("sort", "page"):
        assert words in _error_beside(html, field)
    else:
        assert words in unescape(html)
    assert _refs(html) == [world.purchase.reference]  # the kind still applied


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"amount_min": "12\x00"}, "control character"),
        ({"text": "taxi\x00"}, "control character"),
        ({"amount_min": "9" * 5000}, "longer than"),
    ],
)
def test_a_value_the_request_layer_refuses_gets_its_message_never_a_500(app, world, args, words):
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(PAGE, query_string=args)
    assert answer.status_code == 400
    assert words in unescape(answer.get_data(as_text=True))


def test_markup_in_the_words_is_escaped_and_still_searched(app, world):
    browser, _ = demo_browser(app, "ravi")
    answer = browser.get(PAGE, query_string={"text": "<img src=x onerror=alert(1)>"})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<img src=x" not in html
    assert 'value="&lt;img src=x onerror=alert(1)&gt;"' in html
    assert 'data-testid="audit-empty"' in html


def test_another_organizations_member_is_no_member_here(app, world, globex):
    browser, _ = demo_browser(app, "ravi")
    html = browser.get(PAGE, query_string={"approver_id": globex.admin.member_id}).get_data(
        as_text=True
    )
    assert "No member of this organization" in html and "Gus Globex" not in html
    assert _refs(html) == [] and 'data-testid="audit-refusals"' not in html


def test_nobody_but_admins_and_auditors_reaches_the_search_or_its_exports(app, world, globex):
    allowed, _ = demo_browser(app, "ravi")
    assert allowed.get(PAGE).status_code == 200
    for who in ("siti", "nurul"):
        browser, _ = demo_browser(app, who)
        for url in (PAGE, PAGE + "?text=x", PAGE + "export.csv", PAGE + "export.json"):
            assert browser.get(url).status_code == 404, (who, url)
        assert 'href="/o/acme/audit/' not in browser.get("/o/acme/").get_data(as_text=True)
    # Globex's admin is no member of acme: the same 404.
    theirs, _ = sign_in(app, globex.admin)
    assert theirs.get(PAGE).status_code == 404
    assert theirs.get("/o/globex-test/audit/").status_code == 200


def test_the_auditor_finds_the_audit_in_the_top_bar_and_the_admin_on_the_home_page(app, world):
    auditor, _ = demo_browser(app, "ravi")
    home = auditor.get("/o/acme/").get_data(as_text=True)
    nav = re.search(r'<nav class="mainnav".*?</nav>', home, re.S)
    assert nav and 'href="/o/acme/audit/"' in nav.group(0)
    page = auditor.get(PAGE).get_data(as_text=True)
    nav = re.search(r'<nav class="mainnav".*?</nav>', page, re.S)
    assert nav and 'aria-current="page">Audit<' in nav.group(0)
    admin, _ = demo_browser(app, "aisha")
    home = admin.get("/o/acme/").get_data(as_text=True)
    nav = re.search(r'<nav class="mainnav".*?</nav>', home, re.S)
    assert nav and "/audit/" not in nav.group(0)  # the admin's bar is unchanged
    assert 'data-testid="home-audit-link"' in home
