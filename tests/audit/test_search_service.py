"""The audit search at the service layer (``audit.queries.search.search``): an auditor,
and an admin, find every document of their organization by each filter, sorted and paged
as asked; discarded drafts only when asked for; nobody else reaches it; and Globex's
document, whose title holds the same words, never shows in rows or counts."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from portal.audit.queries.search import search
from portal.domain.audit_query import AuditQuery, parse_audit_query
from portal.domain.errors import NotFound
from tests.audit.search_world import WORD, World
from tests.audit.search_world import world as world

DAY = timedelta(days=1)


def _found(actor, **args: str) -> list[str]:
    query, refusals = parse_audit_query(args)
    assert refusals == []
    return [r.reference for r in search(actor, query).rows]


def _cases(w: World) -> list[tuple[dict[str, str], list[str]]]:
    siti, nurul, hannah = (w.person(n) for n in ("siti", "nurul", "hannah"))
    rejected, reviewed, purchase = w.rejected.reference, w.reviewed.reference, w.purchase.reference
    day0, day3 = w.first_day.isoformat(), (w.first_day + 3 * DAY).isoformat()
    return [
        # Newest first by default; the discarded draft is not listed.
        ({}, [purchase, reviewed, rejected]),
        ({"kind": "purchase_request"}, [purchase]),
        ({"state": "rejected"}, [rejected]),
        ({"state": "discarded"}, [w.discarded.reference]),
        ({"requester_id": str(siti.member_id)}, [reviewed, rejected]),
        ({"approver_id": str(nurul.member_id)}, [rejected]),
        ({"approver_id": str(hannah.member_id)}, [reviewed]),
        # The requester's own acts (submitting) make nobody an approver.
        ({"approver_id": str(siti.member_id)}, []),
        ({"delegate_id": str(hannah.member_id)}, [reviewed]),
        ({"delegate_id": str(nurul.member_id)}, []),
        ({"created_from": day3}, [purchase, reviewed]),
        ({"created_to": day0}, [rejected]),
        ({"created_from": day0, "created_to": day0}, [rejected]),
        ({"decided_from": day3, "decided_to": day3}, [purchase, reviewed]),
        ({"decided_to": day0}, [rejected]),
        ({"amount_min": "400"}, [reviewed, rejected]),
        ({"amount_max": "400"}, [purchase]),
        ({"amount_min": "480", "amount_max": "480.00"}, [reviewed]),
        ({"reference": rejected.lower()}, [rejected]),
        # Part of a reference finds every one that holds it.
        ({"reference": rejected.split("-", 1)[1]}, [purchase, rejected]),
        ({"text": "kuching"}, [rejected]),
        ({"text": "TAXI, PEN"}, [reviewed]),
        # Wildcards are searched as the characters they are.
        ({"text": "%"}, []),
        ({"text": "_"}, []),
        ({"kind": "expense_claim", "amount_min": "1000", "state": "rejected"}, [rejected]),
    ]


@pytest.mark.parametrize("who", ["ravi", "aisha"])
def test_an_auditor_and_an_admin_find_a_document_by_each_filter(world, who):
    reader = world.person(who)  # Ravi audits; Aisha is an admin
    for args, expected in _cases(world):
        assert _found(reader, text=args.pop("text", WORD), **args) == expected, args


def test_a_page_says_how_many_match_and_what_the_form_offers(world):
    page = search(world.auditor, AuditQuery())
    assert (page.total, page.total_capped, page.pages, page.has_next, page.past_end) == (
        3,
        False,
        1,
        False,
        False,
    )
    row = next(r for r in page.rows if r.reference == world.rejected.reference)
    assert (row.kind_label, row.state_label, row.tone, row.requester_name) == (
        "Expense claim",
        "Rejected",
        "rejected",
        "Siti Aminah",
    )
    assert str(row.amount) in {"1250.00", "1250.0000"} and row.currency == "MYR"
    assert {"expense_claim", "purchase_request", "leave_request"} <= {k.key for k in page.kinds}
    assert {"rejected", "draft"} <= {s.key for s in page.states}
    names = {m.name for m in page.members}
    assert {"Siti Aminah", "Ravi Kumar"} <= names and "Gus Globex" not in names
    assert page.time_zone == "Asia/Kuala_Lumpur"


def test_the_columns_sort_both_ways_and_ties_keep_one_order(world):
    rejected, reviewed, purchase = (
        world.rejected.reference,
        world.reviewed.reference,
        world.purchase.reference,
    )
    auditor = world.auditor
    assert _found(auditor, sort="amount") == [purchase, reviewed, rejected]
    assert _found(auditor, sort="-amount") == [rejected, reviewed, purchase]
    assert _found(auditor, sort="created") == [rejected, reviewed, purchase]
    assert _found(auditor, sort="requester")[0] == purchase  # Jason before Siti
    assert _found(auditor, sort="-requester")[-1] == purchase
    assert _found(auditor, sort="kind") == [rejected, reviewed, purchase]
    assert _found(auditor, sort="reference") == sorted([rejected, reviewed, purchase])
    assert _found(auditor, sort="state") == [rejected, reviewed, purchase]
    assert _found(auditor, sort="-decided")[-1] == rejected
    assert sorted(_found(auditor, sort="title")) == sorted([rejected, reviewed, purchase])


def test_pages_of_twenty_five_and_a_page_past_the_end(world):
    auditor = world.auditor
    first = search(auditor, AuditQuery(page=1))
    assert first.pages == 1 and not first.past_end
    beyond = search(auditor, AuditQuery(page=9))
    assert beyond.past_end and beyond.rows == [] and beyond.pages == 1 and beyond.total == 3


def test_another_organizations_member_matches_nothing_and_says_nothing(world, globex):
    gus = globex.admin.member_id
    for name in ("requester_id", "approver_id", "delegate_id"):
        page = search(world.auditor, replace(AuditQuery(), **{name: gus}))
        assert page.rows == [] and page.total == 0


def test_globex_sees_its_own_document_and_nothing_of_acmes(world, globex):
    theirs = search(globex.admin.actor, AuditQuery(text=WORD))
    assert [r.reference for r in theirs.rows] == [world.globex_reference]
    assert theirs.total == 1
    ours = search(world.auditor, AuditQuery(text="Globex"))
    assert ours.rows == [] and ours.total == 0


def test_a_member_who_is_neither_auditor_nor_admin_finds_no_such_page(world):
    search(world.auditor, AuditQuery())  # the allowed case first
    for who in ("siti", "nurul", "hannah"):
        with pytest.raises(NotFound):
            search(world.person(who), AuditQuery())
