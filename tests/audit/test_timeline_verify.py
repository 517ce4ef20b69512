"""The timeline's "Verify" button: it recomputes the document's hash chain now and says
so ("Chain verified: 6 decisions, at …"), with htmx as a swapped block and without as
the page; a decision rewritten as the database's owner is a prominent alert naming the
first decision that does not follow."""

from __future__ import annotations

import json
import re

from tests.audit import timelines
from tests.audit.timelines import rewrite_decision, the_long_way, urls
from tests.factories import demo_browser

as_owner = timelines.as_owner  # the fixture

REWRITE = "UPDATE decision SET comment = 'Looks wrong' WHERE document_id = :doc AND seq = 2"


def test_the_button_verifies_the_chain_now(app, people, globex):
    doc = the_long_way(people)
    ravi, token = demo_browser(app, "ravi")
    page = ravi.get(urls(doc.reference)["page"]).get_data(as_text=True)
    # The form posts with its CSRF token, with htmx into the result block.
    assert f'hx-post="{urls(doc.reference)["verify"]}"' in page
    assert 'hx-target="#chain-result"' in page

    swapped = ravi.post(
        urls(doc.reference)["verify"], data={"csrf_token": token}, headers={"HX-Request": "true"}
    )
    assert swapped.status_code == 200
    block = swapped.get_data(as_text=True)
    assert "<html" not in block  # the block alone
    assert re.search(r"Chain verified: 6 decisions, at \d+ Dec 2026, \d+:\d\d\s[ap]m\.", block)
    assert 'data-ok="true"' in block

    # Without JavaScript: the page, with the same answer in it.
    plain = ravi.post(urls(doc.reference)["verify"], data={"csrf_token": token})
    assert plain.status_code == 200
    html = plain.get_data(as_text=True)
    assert "<html" in html and "Chain verified: 6 decisions" in html
    assert 'data-testid="trail-decision"' in html


def test_the_button_needs_the_pages_csrf_token(app, people, globex):
    doc = the_long_way(people)
    ravi, token = demo_browser(app, "ravi")
    assert ravi.post(urls(doc.reference)["verify"], data={"csrf_token": token}).status_code == 200
    assert ravi.post(urls(doc.reference)["verify"]).status_code == 400
    assert (
        ravi.post(urls(doc.reference)["verify"], data={"csrf_token": "forged"}).status_code == 400
    )


def _a_rewritten_decision_is_named(app, person, postgres: bool) -> None:
    doc = the_long_way(person)
    ravi, token = demo_browser(app, "ravi")
    verify = urls(doc.reference)["verify"]
    headers = {"HX-Request": "true"}
    assert 'data-ok="true"' in ravi.post(
        verify, data={"csrf_token": token}, headers=headers
    ).get_data(as_text=True)

    assert rewrite_decision(postgres, person("ravi").org_id, REWRITE, doc=doc.id) == 1

    block = ravi.post(verify, data={"csrf_token": token}, headers=headers).get_data(as_text=True)
    assert 'role="alert"' in block and 'data-broken-at="2"' in block
    assert f"The history of {doc.reference} does not verify: decision 2" in block
    # The page itself says so on reading, the print view too, and the exported record.
    page = ravi.get(urls(doc.reference)["page"]).get_data(as_text=True)
    assert 'data-broken-at="2"' in page and "Looks wrong" in page
    assert 'data-broken-at="2"' in ravi.get(urls(doc.reference)["print"]).get_data(as_text=True)
    record = json.loads(ravi.get(urls(doc.reference)["record"]).get_data(as_text=True))
    assert record["verification"]["ok"] is False
    assert record["verification"]["first_bad_seq"] == 2


def test_a_decision_rewritten_by_the_owner_is_named_by_its_seq(app, backend, as_owner):
    _a_rewritten_decision_is_named(app, as_owner, backend.postgres)
