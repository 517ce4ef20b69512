"""A document's timeline for the auditor: every decision with who took it, on whose
authority and how, the approver set and resolution as they stood then, the comment, the
flow version, the request id and the hash; the time in each state; the path on the
flow's diagram — for admins and auditors, and nobody else."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest

from portal.core.clock import clock
from portal.documents import services as documents
from portal.documents.queries import detail as document_queries
from portal.domain.actor import Role
from tests.audit.timelines import LONG_WAY, the_long_way, urls
from tests.delegations.covers import move, set_cover, start_today
from tests.factories import demo_browser, sign_in


def test_an_auditor_reads_every_decision_with_what_it_recorded(app, people, globex):
    doc = the_long_way(people)
    ravi, _ = demo_browser(app, "ravi")
    page = ravi.get(urls(doc.reference)["page"])
    assert page.status_code == 200
    html = page.get_data(as_text=True)

    seqs = [int(s) for s in re.findall(r'data-testid="trail-decision" data-seq="(\d+)"', html)]
    assert seqs == [1, 2, 3, 4, 5, 6]
    assert html.count('data-testid="trail-actor"') == 6
    assert "Attach the receipt, please." in html and "Receipt attached — 谢谢 ✓" in html
    assert "as the requester" in html and "by grant" in html
    # The approver set as it stood: Nurul could review; the resolution says why.
    approvers = re.findall(r'data-testid="trail-approvers">([^<]*)<', html)
    assert approvers[0] == "Nurul Huda"
    assert "the requester&#39;s superior: Nurul Huda" in html
    # Each decision's flow version, request id and hash (short, whole in its title).
    history = document_queries.history(people("ravi"), doc.reference)
    for entry in history:
        assert f'title="{entry.hash}"' in html
    assert html.count("version 1") >= 6
    assert "Chain verified" not in html  # nobody pressed the button yet …
    assert "The chain verified when this page was read: 6 decisions" in html  # … but it is
    # Globex's documents are nowhere.
    assert "Globex" not in html.replace("globex", "")


def test_an_admin_reads_it_too_with_a_link_to_the_flow(app, people, globex):
    doc = the_long_way(people)
    aisha, _ = demo_browser(app, "aisha")
    html = aisha.get(urls(doc.reference)["page"]).get_data(as_text=True)
    assert 'data-testid="trail-decision"' in html
    assert "/o/acme/flows/expense_claim/" in html
    ravi, _ = demo_browser(app, "ravi")
    assert "/o/acme/flows/" not in ravi.get(urls(doc.reference)["page"]).get_data(as_text=True)


def test_a_member_who_is_not_an_auditor_finds_no_audit_page(app, people, globex):
    doc = the_long_way(people)
    ravi, _ = demo_browser(app, "ravi")
    assert ravi.get(urls(doc.reference)["page"]).status_code == 200  # the allowed case first

    for name in ("siti", "nurul", "zainal"):  # its requester and its approvers
        browser, token = demo_browser(app, name)
        # They see the document on its own page …
        assert browser.get(f"/o/acme/documents/{doc.reference}").status_code == 200
        # … but none of the audit's.
        u = urls(doc.reference)
        for key in ("page", "print", "record"):
            assert browser.get(u[key]).status_code == 404, (name, key)
        assert browser.post(u["verify"], data={"csrf_token": token}).status_code == 404
        assert (
            browser.post(
                u["verify"], data={"csrf_token": token}, headers={"HX-Request": "true"}
            ).status_code
            == 404
        )


def test_another_organizations_auditor_cannot_read_ours(app, people, globex, make_member):
    doc = the_long_way(people)
    gina = make_member(globex.org, "Gina Globex", roles=(Role.AUDITOR,))
    browser, token = sign_in(app, gina)
    # Her own organization's audit answers her …
    assert browser.get(urls("EXP-0000-00000", "globex-test")["page"]).status_code == 404
    # … ours neither through our URL nor through hers.
    for org in ("acme", "globex-test"):
        u = urls(doc.reference, org)
        for key in ("page", "print", "record"):
            assert browser.get(u[key]).status_code == 404, (org, key)
        assert browser.post(u["verify"], data={"csrf_token": token}).status_code == 404


def test_the_highlighted_path_is_the_history(app, people, globex):
    doc = the_long_way(people)
    ravi, _ = demo_browser(app, "ravi")
    html = ravi.get(urls(doc.reference)["page"]).get_data(as_text=True)
    history = document_queries.history(people("ravi"), doc.reference)
    path = [(h.from_state, h.to_state) for h in history if h.from_state != h.to_state]
    assert path == LONG_WAY

    # Each arrow taken carries the steps that took it, in the history's order.
    taken = re.findall(
        r'<line class="diagram-arrow taken"[^>]*data-from="(\w+)" data-to="(\w+)" data-steps="([\d, ]+)"',
        html,
    )
    steps = {int(n): (a, b) for a, b, ns in taken for n in ns.split(", ")}
    assert [steps[n] for n in sorted(steps)] == path
    # Only those: every other arrow is drawn plain.
    plain = re.findall(r'<line class="diagram-arrow"[^>]*data-from="(\w+)" data-to="(\w+)"', html)
    assert not set(plain) & set(path)
    # The states visited are marked, the others not.
    visited = set(re.findall(r'data-state="(\w+)" data-visited="true"', html))
    assert visited == {state for move in path for state in move}
    assert re.search(r'class="diagram-state[^"]* current[^"]*" data-state="approved"', html)
    # The same path in words, for whoever cannot see the drawing.
    listed = re.findall(
        r'<li data-from="([^"]+)" data-to="([^"]+)"><span class="step-number">', html
    )
    assert listed[1] == ("Pending review", "Rejected") and len(listed) == 6


@pytest.mark.parametrize(
    "reference",
    [
        "EXP-2026-%00001",  # NUL
        "EXP-2026-\u0661\u0662",  # Arabic-Indic digits
        "E" * 5000,
        "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "9" * 5000,
        "EXP-2026-99999",  # no such document
    ],
)
def test_a_bad_reference_is_not_found_and_nothing_is_recorded(app, people, globex, reference):
    ravi, token = demo_browser(app, "ravi")
    base = f"/o/acme/audit/documents/{reference}"
    for path in (base, f"{base}/print", f"{base}/record.json"):
        answer = ravi.get(path)
        assert answer.status_code == 404, path[:80]
        assert "Page not found." in answer.get_data(as_text=True)
        assert "<script>alert" not in answer.get_data(as_text=True)
    assert ravi.post(f"{base}/verify", data={"csrf_token": token}).status_code == 404


def test_a_decision_under_cover_names_both_and_the_edits_sit_between(app, people, globex):
    today = start_today()
    siti, nurul, jason = people("siti"), people("nurul"), people("jason")
    doc = documents.create_document(
        siti,
        kind="expense_claim",
        title="Team lunch",
        amount=Decimal("120.00"),
        fields={"category": "meals", "expense_date": "2026-11-20"},
    )
    clock.advance(timedelta(minutes=5))
    documents.update_document(siti, doc.reference, amount=Decimal("145.50"))
    clock.advance(timedelta(minutes=5))
    doc = move(siti, doc, "submit")
    set_cover(nurul, jason, today, today + timedelta(days=4), reason="Annual leave")
    clock.advance(timedelta(hours=2))
    move(jason, doc, "review")

    ravi, _ = demo_browser(app, "ravi")
    html = ravi.get(urls(doc.reference)["page"]).get_data(as_text=True)
    entries = re.findall(r'data-testid="(trail-edit|trail-decision)"', html)
    assert entries == ["trail-edit", "trail-decision", "trail-decision"]
    assert "RM120.00 → RM145.50" in html
    reviewed = html.split('data-seq="2"')[1]
    assert "Jason" in reviewed.split('data-testid="trail-actor">')[1].split("</dd>")[0]
    assert "on behalf of Nurul Huda (cover" in reviewed and "Annual leave)" in reviewed
    assert "under a cover (delegation)" in reviewed


def test_the_document_page_leads_admins_and_auditors_to_the_timeline(app, people, globex):
    doc = the_long_way(people)
    link = f'href="{urls(doc.reference)["page"]}"'
    for name in ("ravi", "aisha"):
        browser, _ = demo_browser(app, name)
        assert link in browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
    for name in ("siti", "nurul"):
        browser, _ = demo_browser(app, name)
        page = browser.get(f"/o/acme/documents/{doc.reference}").get_data(as_text=True)
        assert "/audit/" not in page.split("<main")[1]
