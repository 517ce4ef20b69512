"""The "Who would approve?" page, driven through the Flask test client as acme's admin.

Acme's chart (every holding primary, from VALID_FROM)::

    SALES  HEAD  Hana Head    head of SALES
    SALES  LEAD  Lee Lead     reports to HEAD
    SALES  REP   Rita Rep     reports to LEAD

Nora Nowhere is an acme member without a seat. Globex has Gina Globex in G-BOSS; none
of globex may show up on acme's page, nor be accepted as a requester there.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass
from datetime import date

import pytest

from portal.flows import seeded
from portal.orgchart import services
from tests.factories import retire_position, sign_in

PAGE = "/o/acme-test/admin/chart/routing"
CHART = "/o/acme-test/admin/chart"
VALID_FROM = date(2025, 1, 1)


@dataclass(frozen=True)
class Chart:
    unit: int
    head: int
    lead: int
    rep: int
    hana: int
    lee: int
    rita: int
    nora: int
    gina: int


@pytest.fixture
def chart(acme, globex, make_member, today) -> Chart:
    admin = acme.admin.actor
    unit = services.create_unit(admin, code="SALES", name="Sales").id
    head = services.create_position(admin, code="HEAD", title="Head of sales", unit_id=unit).id
    lead = services.create_position(
        admin, code="LEAD", title="Team lead", unit_id=unit, reports_to_id=head
    ).id
    rep = services.create_position(
        admin, code="REP", title="Sales rep", unit_id=unit, reports_to_id=lead
    ).id
    services.update_unit(
        admin, unit, code="SALES", name="Sales", parent_id=None, head_position_id=head
    )
    seated = {}
    for name, seat in (("Hana Head", head), ("Lee Lead", lead), ("Rita Rep", rep)):
        seated[name] = make_member(acme.org, name).member_id
        services.assign_position(
            admin, member_id=seated[name], position_id=seat, valid_from=VALID_FROM
        )
    nora = make_member(acme.org, "Nora Nowhere").member_id

    gus = globex.admin.actor
    g_unit = services.create_unit(gus, code="G-HQ", name="Globex HQ").id
    g_boss = services.create_position(gus, code="G-BOSS", title="Globex boss", unit_id=g_unit).id
    gina = make_member(globex.org, "Gina Globex").member_id
    services.assign_position(gus, member_id=gina, position_id=g_boss, valid_from=VALID_FROM)

    return Chart(
        unit=unit,
        head=head,
        lead=lead,
        rep=rep,
        hana=seated["Hana Head"],
        lee=seated["Lee Lead"],
        rita=seated["Rita Rep"],
        nora=nora,
        gina=gina,
    )


def _query(chart: Chart, **over: object) -> dict[str, str]:
    """A valid query for Rita's purchase request, with some inputs replaced."""
    query = {
        "kind": seeded.PURCHASE_REQUEST,
        "member_id": str(chart.rita),
        "amount": "500",
        "currency": "USD",
        "as_of": "",
    }
    query.update({k: str(v) for k, v in over.items()})
    return query


def _result(html: str) -> str:
    """The region htmx swaps: from #route-result to the end of its section."""
    match = re.search(r'<div id="route-result".*?</section>', html, re.S)
    assert match, "no #route-result on the page"
    return match.group(0)


def _text(fragment: str) -> str:
    """Visible text, whitespace collapsed, entities decoded."""
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def _summary(html: str) -> str:
    """The sentence above the steps: staffed, or where and why it would be refused."""
    match = re.search(
        r'<p class="notice" data-testid="route-summary">(.*?)</p>'
        r'|<div class="form-errors" data-testid="route-summary">(.*?)</div>',
        html,
        re.S,
    )
    assert match, "no route summary"
    return _text(match.group(1) or match.group(2))


def _deciders(html: str) -> list[str]:
    """The names in bold on each step's "Decided by" line."""
    steps = re.findall(r'data-testid="route-step">(.*?)<table', html, re.S)
    return [name for step in steps for name in re.findall(r"<strong>([^<]+)</strong>", step)]


def _verdicts(html: str) -> list[str]:
    """Each grant row's last cell: what the grant does for this amount."""
    rows = re.findall(r"<tr>\s*<th scope=\"row\">.*?</tr>", _result(html), re.S)
    return [_text(re.findall(r"<td>(.*?)</td>", row, re.S)[-1]) for row in rows]


def _fix_links(html: str) -> list[str]:
    return [
        html_lib.unescape(href)
        for href in re.findall(r'<a href="([^"]+)">Fix this</a>', _result(html))
    ]


def _summary_errors(html: str) -> list[str]:
    box = re.search(r'<div class="form-errors" role="alert"[^>]*>.*?</div>', html, re.S)
    assert box, "no error summary on the page"
    return [_text(li) for li in re.findall(r"<li>(.*?)</li>", box.group(0), re.S)]


def _inline_error(html: str, field: str) -> str:
    match = re.search(rf'<p class="field-error" id="{field}-error">([^<]*)</p>', html)
    assert match, f"no inline error beside {field}"
    return html_lib.unescape(match.group(1))


# --- who may see it ----------------------------------------------------------------------------


def test_the_page_is_for_acmes_admins_only(app, client, login, acme, globex, make_member, chart):
    login(acme.admin)
    assert client.get(PAGE).status_code == 200
    chart_page = client.get(f"{CHART}/").get_data(as_text=True)
    assert re.search(rf'<a class="button" href="{PAGE}">Who would approve\?</a>', chart_page)

    member, _ = sign_in(app, make_member(acme.org, "Mo Member"))
    assert member.get(PAGE).status_code == 403
    assert member.get(PAGE, query_string=_query(chart)).status_code == 403

    outsider, _ = sign_in(app, globex.admin)
    assert outsider.get(PAGE).status_code == 404
    assert outsider.get(PAGE, query_string=_query(chart)).status_code == 404
    assert client.get("/o/globex-test/admin/chart/routing").status_code == 404


# --- the empty form ----------------------------------------------------------------------------


def test_a_first_visit_shows_the_form_with_the_base_currency_and_no_result(
    client, login, acme, chart
):
    login(acme.admin)

    page = client.get(PAGE)

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "<h1>Who would approve?</h1>" in html
    assert re.search(r'<input[^>]*id="currency"[^>]*value="USD"', html)
    assert re.search(r'<input[^>]*id="amount"[^>]*value=""', html)
    assert _text(_result(html).removesuffix("</section>")) == ""
    assert 'role="alert"' not in html
    assert "field-error" not in html
    # Acme's published flows and active members are offered; globex's never.
    flow = re.search(r'<select[^>]*id="kind".*?</select>', html, re.S)
    assert flow, "no flow picker"
    assert sorted(re.findall(r'value="([^"]*)"', flow.group(0))) == sorted(seeded.SEEDED_KINDS)
    requester = re.search(r'<select[^>]*id="member_id".*?</select>', html, re.S)
    assert requester, "no requester picker"
    offered = _text(requester.group(0))
    for name in ("Alice Admin", "Hana Head", "Lee Lead", "Rita Rep", "Nora Nowhere"):
        assert name in offered
    assert "Gina" not in offered and "Gus" not in offered


# --- a route -----------------------------------------------------------------------------------


def test_a_purchase_below_the_unit_head_floor_is_decided_by_the_superior(
    client, login, acme, chart
):
    login(acme.admin)

    page = client.get(PAGE, query_string=_query(chart, amount="9999.99"))

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    summary = _summary(html)
    assert (
        "Rita Rep's Purchase request of $9,999.99 would go through 1 approval step, "
        "all of them staffed."
    ) in summary
    assert "Version 1, as of Mar 16, 2026." in summary
    assert html.count('data-testid="route-step"') == 1
    step = _text(_result(html))
    assert "Approved approved staffed" in step
    assert "Decided by the band from $0.00: Lee Lead (Team lead)" in step
    assert _deciders(html) == ["Lee Lead"]
    assert _verdicts(html) == ["decides", "above this amount"]
    assert _fix_links(html) == []
    # What was asked stays in the form.
    assert re.search(r'<input[^>]*id="amount"[^>]*value="9999.99"', html)
    assert re.search(rf'<option selected value="{chart.rita}">Rita Rep', html)


@pytest.mark.parametrize("amount", ["10000", "10000.00", "10,000.00", " 12000.5 "])
def test_a_purchase_from_the_unit_head_floor_is_decided_by_the_unit_head(
    client, login, acme, chart, amount
):
    login(acme.admin)

    page = client.get(PAGE, query_string=_query(chart, amount=amount))

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Decided by the band from $10,000.00: Hana Head (Head of sales)" in _text(_result(html))
    assert _deciders(html) == ["Hana Head"]
    assert _verdicts(html) == ["a lower band", "decides"]


def test_an_htmx_request_answers_the_same_page_for_the_client_to_pick_the_result_from(
    client, login, acme, chart
):
    login(acme.admin)
    query = _query(chart, amount="12000")
    full = client.get(PAGE, query_string=query).get_data(as_text=True)

    answer = client.get(PAGE, query_string=query, headers={"HX-Request": "true"})

    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert _result(html) == _result(full)
    assert _deciders(html) == ["Hana Head"]
    # The form that sends these requests swaps only the result, never itself.
    found = re.search(r'<form[^>]*hx-get=.*?hx-trigger="[^"]*">', html, re.S)
    assert found is not None
    form = found.group(0)
    assert f'hx-get="{PAGE}"' in form
    assert 'hx-target="#route-result"' in form
    assert 'hx-select="#route-result > *"' in form
    assert 'hx-swap="innerHTML"' in form  # the live region stays; its content changes

    refused = client.get(
        PAGE, query_string=_query(chart, amount="-1"), headers={"HX-Request": "true"}
    )
    assert refused.status_code == 422
    assert _summary_errors(_result(refused.get_data(as_text=True))) == [
        "Amount: The amount cannot be negative."
    ]


def test_a_form_still_being_filled_in_is_not_told_off(client, login, acme, chart):
    login(acme.admin)
    # A full submission with the amount missing is an error beside the field…
    full = client.get(PAGE, query_string=_query(chart, amount=""))
    assert full.status_code == 422
    assert _summary_errors(_result(full.get_data(as_text=True))) == [
        "Amount: This field is required."
    ]
    # …but the live update sent when the flow is picked, before an amount, just waits.
    update = client.get(PAGE, query_string=_query(chart, amount=""), headers={"HX-Request": "true"})
    assert update.status_code == 200
    result = _result(update.get_data(as_text=True))
    assert 'role="alert"' not in result
    assert "Choose a flow and a requester and enter an amount to see the route." in result


def test_the_route_is_read_as_of_the_day_asked(client, login, acme, chart, make_member):
    admin = acme.admin.actor
    services.end_holding(admin, _holding_of(acme, chart.lee), last_day=date(2026, 3, 10))
    successor = make_member(acme.org, "Sara Successor").member_id
    services.assign_position(
        admin, member_id=successor, position_id=chart.lead, valid_from=date(2026, 3, 11)
    )
    login(acme.admin)

    today = client.get(PAGE, query_string=_query(chart)).get_data(as_text=True)
    before = client.get(PAGE, query_string=_query(chart, as_of="2026-03-10"))

    assert _deciders(today) == ["Sara Successor"]
    assert before.status_code == 200
    html = before.get_data(as_text=True)
    assert _deciders(html) == ["Lee Lead"]
    assert "as of Mar 10, 2026." in _text(_result(html))


def _holding_of(acme, member_id: int) -> int:
    chart = services.get_chart(acme.admin.actor)
    [holding] = [
        h.holding_id
        for p in chart.positions.values()
        for h in p.holders
        if h.member_id == member_id
    ]
    return holding


# --- refusals ----------------------------------------------------------------------------------


REFUSALS = [
    # (what is replaced, the field it is shown beside, the message)
    ({"amount": "twelve"}, "amount", "Type the amount in digits, as 1,234.50."),
    ({"amount": "NaN"}, "amount", "Type the amount in digits, as 1,234.50."),
    ({"amount": "1e15"}, "amount", "Type the amount in digits, as 1,234.50."),
    (
        {"amount": "12,34"},
        "amount",
        "That amount could be read more than one way. Type the amount as 1,234.50.",
    ),
    ({"amount": "-0.01"}, "amount", "The amount cannot be negative."),
    ({"amount": "1.001"}, "amount", "USD amounts have at most 2 decimal places."),
    (
        {"amount": "1" + "0" * 15},
        "amount",
        "The amount must be less than 1,000,000,000,000,000.",
    ),
    (
        {"currency": "EUR"},
        "currency",
        "Amounts are in the organization's base currency, USD, not “EUR”.",
    ),
    ({"member_id": "999999"}, "member_id", "Pick a member of this organization."),
    ({"member_id": str(2**64)}, "member_id", "Pick a member of this organization."),
    ({"kind": "no_such_flow"}, "kind", "There is no published flow “no_such_flow”."),
    ({"amount": ""}, "amount", "This field is required."),
    ({"member_id": ""}, "member_id", "This field is required."),
    ({"kind": ""}, "kind", "This field is required."),
    ({"as_of": "2026-02-30"}, "as_of", "Not a valid date value."),
]
LABELS = {
    "amount": "Amount",
    "currency": "Currency",
    "member_id": "Requester",
    "kind": "Flow",
    "as_of": "As of",
}


@pytest.mark.parametrize(
    ("over", "field", "message"),
    REFUSALS,
    ids=[f"{f}={v!r}" for o, f, _ in REFUSALS for v in o.values()],
)
def test_bad_input_is_a_422_with_the_reason_in_the_summary_and_beside_the_field(
    client, login, acme, chart, over, field, message
):
    login(acme.admin)

    page = client.get(PAGE, query_string=_query(chart, **over))

    assert page.status_code == 422
    html = page.get_data(as_text=True)
    assert _summary_errors(html) == [f"{LABELS[field]}: {message}"]
    assert f'<a href="#{field}">{LABELS[field]}</a>' in _result(html)
    assert _inline_error(html, field) == message
    assert re.search(rf'<(input|select)[^>]*aria-invalid="true"[^>]*id="{field}"', html)
    assert 'data-testid="route-summary"' not in html


def test_another_orgs_member_is_not_a_requester_here(client, login, acme, globex, chart):
    login(acme.admin)

    page = client.get(PAGE, query_string=_query(chart, member_id=chart.gina))

    assert page.status_code == 422
    html = page.get_data(as_text=True)
    assert _inline_error(html, "member_id") == "Pick a member of this organization."
    assert "Gina" not in html
    assert 'data-testid="route-summary"' not in html


def test_an_empty_query_string_value_for_every_field_lists_every_missing_one(
    client, login, acme, chart
):
    login(acme.admin)

    page = client.get(PAGE, query_string={"kind": "", "member_id": "", "amount": ""})

    assert page.status_code == 422
    assert _summary_errors(page.get_data(as_text=True)) == [
        "Flow: This field is required.",
        "Requester: This field is required.",
        "Amount: This field is required.",
    ]


# --- gaps, and where to fix them --------------------------------------------------------------


def test_a_retired_superior_seat_strands_the_route_with_a_link_to_that_seat(
    client, login, acme, chart
):
    admin = acme.admin.actor
    retire_position(admin, chart.lead)
    login(acme.admin)

    page = client.get(PAGE, query_string=_query(chart, amount="500"))

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    summary = _summary(html)
    assert summary == (
        "Rita Rep's Purchase request of $500.00 would be refused at “Approved”. "
        "The position LEAD — Team lead is retired or gone. Fix this"
    )
    assert "stranded" in _text(_result(html))
    assert _deciders(html) == []
    assert _verdicts(html) == ["strands it", "above this amount"]
    fixes = _fix_links(html)
    assert fixes and set(fixes) == {f"{CHART}/positions/{chart.lead}"}
    assert client.get(fixes[0]).status_code == 200


def test_a_member_without_a_primary_seat_links_to_seating_them(client, login, acme, chart):
    login(acme.admin)

    page = client.get(PAGE, query_string=_query(chart, member_id=chart.nora, amount="500"))

    assert page.status_code == 200
    html = page.get_data(as_text=True)
    reason = "Nora Nowhere has no primary position, so there is no superior or unit to start from."
    summary = _summary(html)
    assert reason in summary
    fixes = _fix_links(html)
    assert fixes and set(fixes) == {f"{CHART}/holdings/new?member_id={chart.nora}"}

    seat_form = client.get(fixes[0]).get_data(as_text=True)
    assert re.search(rf'<option selected value="{chart.nora}">Nora Nowhere', seat_form)

    # From 10000.00 both grants stop on the same missing seat: the step says so once.
    big = client.get(PAGE, query_string=_query(chart, member_id=chart.nora, amount="10000"))
    html = big.get_data(as_text=True)
    assert _verdicts(html) == ["strands it", "strands it"]
    assert [_text(gap) for gap in re.findall(r'<p class="gap">(.*?)</p>', html, re.S)] == [
        f"{reason} Fix this"
    ]


def test_a_gap_above_the_amount_is_told_apart_and_does_not_strand_a_smaller_one(
    client, login, acme, chart
):
    admin = acme.admin.actor
    services.update_unit(
        admin, chart.unit, code="SALES", name="Sales", parent_id=None, head_position_id=None
    )
    login(acme.admin)

    small = client.get(PAGE, query_string=_query(chart, amount="500")).get_data(as_text=True)
    big = client.get(PAGE, query_string=_query(chart, amount="10000")).get_data(as_text=True)

    no_head = "Sales has no head position (and none above it that this grant may use)."
    assert _summary(small).startswith("Rita Rep's Purchase request of $500.00 would go through")
    assert _deciders(small) == ["Lee Lead"]
    apart = re.search(r'<p class="muted">(.*?)</p>', _result(small), re.S)
    assert apart, "the gap above the amount is not reported"
    assert no_head in _text(apart.group(1))
    assert _fix_links(small) == [f"{CHART}/units/{chart.unit}"] * 2  # its row, and the note

    assert _summary(big) == (
        "Rita Rep's Purchase request of $10,000.00 would be refused at “Approved”. "
        f"{no_head} Fix this"
    )
    # Lee's lower band does not quietly take the larger purchase over.
    assert _deciders(big) == []
    assert _verdicts(big) == ["a lower band", "strands it"]
    assert set(_fix_links(big)) == {f"{CHART}/units/{chart.unit}"}


def test_under_exclusive_approval_the_page_says_who_is_left_out_and_where_to_fix_it(
    client, login, acme, chart
):
    login(acme.admin)
    # A flow without the setting says nothing of it.
    plain = client.get(PAGE, query_string=_query(chart)).get_data(as_text=True)
    assert "exclusive approval" not in _result(plain)
    # Rita's claim: Lee reviews, Hana approves, and Alice, the only admin, commits; so
    # nobody is left to pay.
    rita = client.get(PAGE, query_string=_query(chart, kind=seeded.EXPENSE_CLAIM))
    assert rita.status_code == 200
    html = rita.get_data(as_text=True)
    assert "This flow has exclusive approval" in _result(html)
    assert "would be refused at “Paid”" in _summary(html)
    assert _deciders(html)[:3] == ["Lee Lead", "Hana Head", "Alice Admin"]
    assert "Alice Admin is left out: nobody else can decide “Category verified”" in _text(
        _result(html)
    )
    # Lee's claim: Hana is both his superior and the head of Sales.
    lee = client.get(
        PAGE, query_string=_query(chart, kind=seeded.EXPENSE_CLAIM, member_id=chart.lee)
    )
    html = lee.get_data(as_text=True)
    assert "would be refused at “Approved”" in _summary(html)
    assert "this flow has exclusive approval: nobody decides more than one step" in _summary(html)
    assert "Hana Head is left out: nobody else can decide “Reviewed”" in _text(_result(html))
    assert any(link.endswith("/flows/expense_claim/") for link in _fix_links(html))
    # Globex's people are never named.
    assert "Gina" not in _result(html)
