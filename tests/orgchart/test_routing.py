"""Who approves, resolved over a real chart in the database, with globex always present.

The rules themselves are proven pure in ``tests/domain``; here the same rules run on
a chart built through the real services — dated holdings, retired seats, deactivated
members, another organization's rows next door — and through the seeded flows.

Acme's chart (every holding primary, from VALID_FROM, unless a test says otherwise)::

    EXEC  CEO    Cora Chief            head of EXEC
    OPS   HEAD   Hank Head             head of OPS; reports to CEO
    OPS   LEAD   Lee Lead              reports to HEAD
    OPS   STAFF  Sam Staff             reports to LEAD
    OPS   SHIFT  (vacant)              reports to HEAD
    OPS   CREW   Cal Crew              reports to SHIFT

Alice Admin (acme's admin) holds no seat. Globex has G-BOSS (Gina Boss) above
G-WORK (Glen Worker), which must never show up in anything acme resolves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from portal.accounts import services as accounts
from portal.core.uow import unit_of_work
from portal.domain.actor import Role
from portal.domain.errors import DomainError, Forbidden
from portal.domain.graph import Grant, Grantee, GranteeKind, OnVacancy
from portal.domain.resolution import Gap, GapReason, Resolution
from portal.domain.routing import Route
from portal.flows import queries as flow_queries
from portal.flows import seeded
from portal.flows.services import drafts, publishing, route_preview
from portal.orgchart import routing, services
from portal.orgchart.models import HoldingKind
from portal.orgchart.queries import load_chart
from tests.factories import retire_position

VALID_FROM = date(2025, 1, 1)


@dataclass(frozen=True)
class Chart:
    """Ids of acme's chart (and globex's), by the names the tests use."""

    exec_unit: int
    ops_unit: int
    ceo: int
    head: int
    lead: int
    staff: int
    shift: int
    crew: int
    cora: int
    hank: int
    lee: int
    sam: int
    cal: int
    holdings: dict[str, int]  # member name -> id of their primary holding
    g_boss: int
    g_work: int
    gina: int
    glen: int


def _first_gap(found: Route) -> Gap:
    """The gap the route strands on first (it must strand)."""
    first = found.first_gap()
    assert first is not None
    return first[1]


def _seat(actor, code: str, unit_id: int, reports_to_id: int | None = None) -> int:
    position = services.create_position(
        actor, code=code, title=f"{code} seat", unit_id=unit_id, reports_to_id=reports_to_id
    )
    return position.id


def _make_head(actor, unit_id: int, head_position_id: int | None) -> None:
    unit = services.get_unit(actor, unit_id)
    services.update_unit(
        actor,
        unit.id,
        code=unit.code,
        name=unit.name,
        parent_id=unit.parent_id,
        head_position_id=head_position_id,
    )


def _sit(actor, member_id: int, position_id: int, **kw) -> int:
    kw.setdefault("valid_from", VALID_FROM)
    return services.assign_position(actor, member_id=member_id, position_id=position_id, **kw).id


@pytest.fixture
def chart(acme, globex, make_member, today) -> Chart:
    admin = acme.admin.actor
    exec_unit = services.create_unit(admin, code="EXEC", name="Executive").id
    ops_unit = services.create_unit(admin, code="OPS", name="Operations", parent_id=exec_unit).id
    ceo = _seat(admin, "CEO", exec_unit)
    head = _seat(admin, "HEAD", ops_unit, ceo)
    lead = _seat(admin, "LEAD", ops_unit, head)
    staff = _seat(admin, "STAFF", ops_unit, lead)
    shift = _seat(admin, "SHIFT", ops_unit, head)
    crew = _seat(admin, "CREW", ops_unit, shift)
    _make_head(admin, exec_unit, ceo)
    _make_head(admin, ops_unit, head)
    people = {
        "Cora Chief": ceo,
        "Hank Head": head,
        "Lee Lead": lead,
        "Sam Staff": staff,
        "Cal Crew": crew,
    }
    members: dict[str, int] = {}
    holdings: dict[str, int] = {}
    for name, seat in people.items():
        members[name] = make_member(acme.org, name).member_id
        holdings[name] = _sit(admin, members[name], seat)

    gus = globex.admin.actor
    g_unit = services.create_unit(gus, code="G-HQ", name="Globex HQ").id
    g_boss = _seat(gus, "G-BOSS", g_unit)
    g_work = _seat(gus, "G-WORK", g_unit, g_boss)
    _make_head(gus, g_unit, g_boss)
    gina = make_member(globex.org, "Gina Boss").member_id
    glen = make_member(globex.org, "Glen Worker").member_id
    _sit(gus, gina, g_boss)
    _sit(gus, glen, g_work)

    return Chart(
        exec_unit=exec_unit,
        ops_unit=ops_unit,
        ceo=ceo,
        head=head,
        lead=lead,
        staff=staff,
        shift=shift,
        crew=crew,
        cora=members["Cora Chief"],
        hank=members["Hank Head"],
        lee=members["Lee Lead"],
        sam=members["Sam Staff"],
        cal=members["Cal Crew"],
        holdings=holdings,
        g_boss=g_boss,
        g_work=g_work,
        gina=gina,
        glen=glen,
    )


def _grant(
    kind: str, *, on_vacancy: str | None = None, max_levels: int | None = None, **who: Any
) -> Grant:
    return Grant(
        grantee=Grantee(kind=kind, **who),
        state="approved",
        on_vacancy=on_vacancy,
        max_escalation_levels=max_levels,
    )


def _resolve(actor, grant: Grant, requester: int, *, on: date | None = None) -> Resolution:
    [resolution] = routing.resolve_grants(actor, [(0, grant)], requester, on=on)
    assert resolution.index == 0
    return resolution


def _found(resolution: Resolution) -> tuple[tuple[int, ...], int | None, bool]:
    """What a resolution found: (members, seat, escalated); it must have no gap."""
    assert resolution.gap is None, resolution.gap
    return resolution.members, resolution.position_id, resolution.escalated


def _gap(resolution: Resolution) -> Gap:
    """Why a resolution found nobody."""
    assert resolution.members == ()
    assert resolution.gap is not None
    return resolution.gap


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


# --- each grantee kind -------------------------------------------------------------------------


def test_a_member_grant_names_that_member_while_active(acme, chart):
    admin = acme.admin.actor
    names_lee = _grant(GranteeKind.MEMBER, member=chart.lee)
    assert _found(_resolve(admin, names_lee, chart.sam)) == ((chart.lee,), None, False)

    accounts.deactivate_member(admin, chart.lee)

    assert _gap(_resolve(admin, names_lee, chart.sam)) == Gap(
        GapReason.MEMBER_INACTIVE, member_id=chart.lee
    )


def test_a_position_grant_finds_its_holders_and_a_secondary_holder_counts(acme, chart):
    admin = acme.admin.actor
    staff_seat = _grant(GranteeKind.POSITION, position=chart.staff)
    assert _found(_resolve(admin, staff_seat, chart.cora)) == ((chart.sam,), chart.staff, False)

    _sit(admin, chart.cal, chart.staff, kind=HoldingKind.SECONDARY)

    members, seat, _ = _found(_resolve(admin, staff_seat, chart.cora))
    assert (members, seat) == (tuple(sorted((chart.sam, chart.cal))), chart.staff)
    # Sitting there on the side does not move Cal: his superior is still above CREW.
    superior = _grant(GranteeKind.SUPERIOR)
    assert _found(_resolve(admin, superior, chart.cal)) == ((chart.hank,), chart.head, True)


def test_a_superior_grant_finds_the_holders_of_the_seat_above_the_requesters(acme, chart):
    admin = acme.admin.actor
    superior = _grant(GranteeKind.SUPERIOR)

    assert _found(_resolve(admin, superior, chart.sam)) == ((chart.lee,), chart.lead, False)
    assert _found(_resolve(admin, superior, chart.lee)) == ((chart.hank,), chart.head, False)
    assert _found(_resolve(admin, superior, chart.hank)) == ((chart.cora,), chart.ceo, False)


def test_a_unit_head_grant_finds_the_head_of_the_requesters_unit(acme, chart):
    admin = acme.admin.actor
    unit_head = _grant(GranteeKind.UNIT_HEAD, walk_up=False)

    assert _found(_resolve(admin, unit_head, chart.sam)) == ((chart.hank,), chart.head, False)
    assert _found(_resolve(admin, unit_head, chart.cal)) == ((chart.hank,), chart.head, False)


def test_a_headless_unit_walks_up_to_its_parents_head_only_when_the_grant_says_so(acme, chart):
    admin = acme.admin.actor
    walks_up = _grant(GranteeKind.UNIT_HEAD, walk_up=True)
    stays = _grant(GranteeKind.UNIT_HEAD, walk_up=False)
    assert _found(_resolve(admin, walks_up, chart.sam)) == ((chart.hank,), chart.head, False)

    _make_head(admin, chart.ops_unit, None)

    assert _found(_resolve(admin, walks_up, chart.sam)) == ((chart.cora,), chart.ceo, False)
    assert _gap(_resolve(admin, stays, chart.sam)) == Gap(
        GapReason.NO_UNIT_HEAD, unit_id=chart.ops_unit
    )


def test_levels_up_counts_seats_above_the_requester_and_stops_at_the_root(acme, chart):
    admin = acme.admin.actor

    def up(levels: int) -> Resolution:
        return _resolve(admin, _grant(GranteeKind.LEVELS_UP, levels=levels), chart.sam)

    assert _found(up(1)) == ((chart.lee,), chart.lead, False)
    assert _found(up(2)) == ((chart.hank,), chart.head, False)
    assert _found(up(3)) == ((chart.cora,), chart.ceo, False)

    assert _gap(up(4)) == Gap(GapReason.ABOVE_ROOT, position_id=chart.ceo)


def test_nobody_is_above_the_root_seat(acme, chart):
    admin = acme.admin.actor
    superior = _grant(GranteeKind.SUPERIOR)
    assert _found(_resolve(admin, superior, chart.hank)) == ((chart.cora,), chart.ceo, False)

    assert _gap(_resolve(admin, superior, chart.cora)) == Gap(
        GapReason.ABOVE_ROOT, position_id=chart.ceo
    )


def test_a_role_grant_finds_the_active_members_with_that_role(acme, globex, chart):
    admin = acme.admin.actor
    admins = _grant(GranteeKind.ROLE, role=Role.ADMIN)
    auditors = _grant(GranteeKind.ROLE, role=Role.AUDITOR)
    # Globex's admin holds the same role in his own organization: not in acme's set.
    assert _found(_resolve(admin, admins, chart.sam)) == ((acme.admin.member_id,), None, False)

    assert _gap(_resolve(admin, auditors, chart.sam)) == Gap(
        GapReason.ROLE_EMPTY, role=Role.AUDITOR
    )

    accounts.set_member_roles(admin, chart.lee, [Role.AUDITOR])
    assert _found(_resolve(admin, auditors, chart.sam)) == ((chart.lee,), None, False)
    accounts.deactivate_member(admin, chart.lee)
    assert _gap(_resolve(admin, auditors, chart.sam)).reason == GapReason.ROLE_EMPTY


# --- vacancies ---------------------------------------------------------------------------------


def test_a_vacant_seat_escalates_to_the_next_filled_seat_within_reach(acme, chart):
    admin = acme.admin.actor
    superior = _grant(GranteeKind.SUPERIOR)  # Cal's superior seat, SHIFT, is empty
    one_level = _grant(GranteeKind.SUPERIOR, max_levels=1)
    assert _found(_resolve(admin, superior, chart.cal)) == ((chart.hank,), chart.head, True)
    assert _found(_resolve(admin, one_level, chart.cal)) == ((chart.hank,), chart.head, True)

    # HEAD empties too: CEO is two seats above SHIFT, in reach by default, not with one.
    services.end_holding(admin, chart.holdings["Hank Head"], last_day=date(2026, 3, 15))

    assert _found(_resolve(admin, superior, chart.cal)) == ((chart.cora,), chart.ceo, True)
    assert _gap(_resolve(admin, one_level, chart.cal)) == Gap(
        GapReason.VACANT, position_id=chart.shift
    )


def test_a_vacant_seat_is_a_gap_when_the_grant_refuses_to_escalate(acme, chart):
    admin = acme.admin.actor
    refuses = _grant(GranteeKind.SUPERIOR, on_vacancy=OnVacancy.REFUSE)
    assert _found(_resolve(admin, refuses, chart.sam)) == ((chart.lee,), chart.lead, False)

    assert _gap(_resolve(admin, refuses, chart.cal)) == Gap(
        GapReason.VACANT, position_id=chart.shift
    )


def test_a_vacant_position_grant_escalates_like_any_other_seat(acme, chart):
    admin = acme.admin.actor
    lead_seat = _grant(GranteeKind.POSITION, position=chart.lead)
    assert _found(_resolve(admin, lead_seat, chart.sam)) == ((chart.lee,), chart.lead, False)

    shift = _grant(GranteeKind.POSITION, position=chart.shift)
    assert _found(_resolve(admin, shift, chart.sam)) == ((chart.hank,), chart.head, True)
    refuses = _grant(GranteeKind.POSITION, position=chart.shift, on_vacancy=OnVacancy.REFUSE)
    assert _gap(_resolve(admin, refuses, chart.sam)) == Gap(
        GapReason.VACANT, position_id=chart.shift
    )


def test_a_retired_seat_resolves_to_nobody_even_with_holders(acme, chart):
    admin = acme.admin.actor
    lead_seat = _grant(GranteeKind.POSITION, position=chart.lead)
    superior = _grant(GranteeKind.SUPERIOR)
    assert _found(_resolve(admin, lead_seat, chart.cora))[0] == (chart.lee,)
    assert _found(_resolve(admin, superior, chart.sam))[0] == (chart.lee,)

    retire_position(admin, chart.lead)

    retired = Gap(GapReason.POSITION_RETIRED, position_id=chart.lead)
    assert _gap(_resolve(admin, lead_seat, chart.cora)) == retired
    # Retired is not vacant: it never escalates past the seat to HEAD.
    assert _gap(_resolve(admin, superior, chart.sam)) == retired


def test_a_deactivated_member_no_longer_holds_their_seat(acme, chart):
    admin = acme.admin.actor
    superior = _grant(GranteeKind.SUPERIOR)
    refuses = _grant(GranteeKind.SUPERIOR, on_vacancy=OnVacancy.REFUSE)
    lead_seat = _grant(GranteeKind.POSITION, position=chart.lead, on_vacancy=OnVacancy.REFUSE)
    assert _found(_resolve(admin, superior, chart.sam)) == ((chart.lee,), chart.lead, False)

    accounts.deactivate_member(admin, chart.lee)  # the holding itself stays open

    assert _found(_resolve(admin, superior, chart.sam)) == ((chart.hank,), chart.head, True)
    assert _gap(_resolve(admin, refuses, chart.sam)) == Gap(
        GapReason.VACANT, position_id=chart.lead
    )
    assert _gap(_resolve(admin, lead_seat, chart.cora)).reason == GapReason.VACANT
    # And a deactivated requester has no seat to be routed from.
    assert _gap(_resolve(admin, superior, chart.lee)) == Gap(
        GapReason.NO_PRIMARY_POSITION, member_id=chart.lee
    )


# --- the requester -----------------------------------------------------------------------------


def test_a_member_without_a_primary_seat_has_no_superior_head_or_levels(acme, chart):
    admin = acme.admin.actor
    alice = acme.admin.member_id
    grants = [
        _grant(GranteeKind.SUPERIOR),
        _grant(GranteeKind.UNIT_HEAD, walk_up=True),
        _grant(GranteeKind.LEVELS_UP, levels=1),
    ]
    assert all(_found(_resolve(admin, g, chart.sam))[0] for g in grants)

    no_seat = Gap(GapReason.NO_PRIMARY_POSITION, member_id=alice)
    assert [_gap(_resolve(admin, g, alice)) for g in grants] == [no_seat] * 3
    # A secondary seat is not a primary one.
    _sit(admin, alice, chart.staff, kind=HoldingKind.SECONDARY)
    assert _gap(_resolve(admin, grants[0], alice)) == no_seat


def test_the_head_requesting_under_a_unit_head_grant_goes_one_seat_up(acme, chart):
    admin = acme.admin.actor
    unit_head = _grant(GranteeKind.UNIT_HEAD, walk_up=True)

    assert _found(_resolve(admin, unit_head, chart.hank)) == ((chart.cora,), chart.ceo, True)


def test_the_head_is_left_alone_when_nobody_above_is_in_reach(acme, chart):
    admin = acme.admin.actor
    unit_head = _grant(GranteeKind.UNIT_HEAD, walk_up=True)
    assert _found(_resolve(admin, unit_head, chart.hank))[0] == (chart.cora,)

    services.end_holding(admin, chart.holdings["Cora Chief"], last_day=date(2026, 3, 15))

    only_hank = _resolve(admin, unit_head, chart.hank)
    assert _gap(only_hank) == Gap(GapReason.ONLY_THE_REQUESTER, member_id=chart.hank)
    assert only_hank.position_id == chart.head
    # Cora, back in the root seat, heads EXEC with nobody above her to turn to.
    _sit(admin, chart.cora, chart.ceo, valid_from=date(2026, 3, 16))
    exec_head = _resolve(admin, unit_head, chart.cora)
    assert _gap(exec_head) == Gap(GapReason.ONLY_THE_REQUESTER, member_id=chart.cora)


# --- as of a day -------------------------------------------------------------------------------


def test_resolution_as_of_a_day_uses_the_holdings_valid_that_day(acme, make_member, chart):
    admin = acme.admin.actor
    lars = make_member(acme.org, "Lars Later").member_id
    fay = make_member(acme.org, "Fay Future").member_id
    services.end_holding(admin, chart.holdings["Lee Lead"], last_day=date(2026, 2, 28))
    _sit(admin, lars, chart.lead, valid_from=date(2026, 3, 1))
    _sit(admin, fay, chart.lead, kind=HoldingKind.SECONDARY, valid_from=date(2026, 4, 1))
    superior = _grant(GranteeKind.SUPERIOR)

    def superiors(on: date | None) -> tuple[int, ...]:
        return _found(_resolve(admin, superior, chart.sam, on=on))[0]

    assert superiors(date(2025, 6, 1)) == (chart.lee,)
    assert superiors(date(2026, 2, 28)) == (chart.lee,)  # the last day is inclusive
    assert superiors(date(2026, 3, 1)) == (lars,)
    assert superiors(None) == (lars,)  # today
    assert superiors(date(2026, 4, 1)) == tuple(sorted((lars, fay)))
    # Before Sam's own holding began he sat nowhere.
    assert _gap(_resolve(admin, superior, chart.sam, on=VALID_FROM - timedelta(days=1))) == Gap(
        GapReason.NO_PRIMARY_POSITION, member_id=chart.sam
    )


# --- the other organization --------------------------------------------------------------------


def test_another_orgs_members_and_seats_resolve_to_nobody_here(acme, globex, chart):
    admin, gus = acme.admin.actor, globex.admin.actor
    superior = _grant(GranteeKind.SUPERIOR)
    # In globex, its own chart answers.
    assert _found(_resolve(gus, superior, chart.glen)) == ((chart.gina,), chart.g_boss, False)
    assert _found(_resolve(admin, _grant(GranteeKind.MEMBER, member=chart.sam), chart.cal))[0] == (
        chart.sam,
    )

    assert _gap(_resolve(admin, _grant(GranteeKind.MEMBER, member=chart.gina), chart.sam)) == Gap(
        GapReason.MEMBER_INACTIVE, member_id=chart.gina
    )
    # A seat acme does not have reads as gone: there is nobody to find in it.
    g_seat = _grant(GranteeKind.POSITION, position=chart.g_boss)
    assert _gap(_resolve(admin, g_seat, chart.sam)) == Gap(
        GapReason.POSITION_RETIRED, position_id=chart.g_boss
    )
    assert _gap(_resolve(admin, superior, chart.glen)) == Gap(
        GapReason.NO_PRIMARY_POSITION, member_id=chart.glen
    )


def test_acmes_chart_snapshot_holds_nothing_of_globex(acme, globex, chart, today):
    with unit_of_work(acme.org.id) as uow:
        snapshot = load_chart(uow.session, today)

    assert {s.code for s in snapshot.seats.values()} == {
        "CEO",
        "HEAD",
        "LEAD",
        "STAFF",
        "SHIFT",
        "CREW",
    }
    assert {u.code for u in snapshot.units.values()} == {"EXEC", "OPS"}
    assert snapshot.active_members == {
        acme.admin.member_id,
        chart.cora,
        chart.hank,
        chart.lee,
        chart.sam,
        chart.cal,
    }
    assert set(snapshot.primary) == {chart.cora, chart.hank, chart.lee, chart.sam, chart.cal}
    assert snapshot.holders.get(chart.g_boss) is None
    assert snapshot.roles == {Role.ADMIN: (acme.admin.member_id,)}


# --- routing the seeded purchase request -------------------------------------------------------


@pytest.fixture
def purchase(acme, chart):
    return flow_queries.current_version(acme.admin.actor, seeded.PURCHASE_REQUEST).graph


def test_a_purchase_below_the_unit_head_floor_is_the_superiors(acme, chart, purchase):
    route = routing.route_document(acme.admin.actor, purchase, chart.sam, Decimal("9999.99"))

    assert route.routable
    [step] = route.steps
    assert step.state == "approved"
    assert step.band is not None
    assert (step.band.floor, step.band.grants, step.eligible) == (
        Decimal("0.00"),
        (0,),
        (chart.lee,),
    )
    assert (step.gaps, step.other_gaps) == ((), ())


def test_a_purchase_at_the_unit_head_floor_is_the_unit_heads_alone(acme, chart, purchase):
    route = routing.route_document(
        acme.admin.actor, purchase, chart.sam, seeded.PURCHASE_UNIT_HEAD_FLOOR
    )

    assert route.routable
    [step] = route.steps
    assert step.band is not None
    assert step.band.floor == Decimal("10000.00")
    assert (step.band.grants, step.eligible) == ((1,), (chart.hank,))


def test_retiring_the_superiors_seat_strands_the_purchase_naming_the_seat(acme, chart, purchase):
    admin = acme.admin.actor
    assert routing.route_document(admin, purchase, chart.sam, Decimal("9999.99")).routable

    retire_position(admin, chart.lead)

    route = routing.route_document(admin, purchase, chart.sam, Decimal("9999.99"))
    assert not route.routable
    retired = Gap(GapReason.POSITION_RETIRED, position_id=chart.lead)
    assert route.first_gap() == (route.steps[0], retired)
    assert (route.steps[0].band, route.steps[0].eligible) == (None, ())
    # A purchase the unit head decides does not need the superior: it still goes
    # through, and the retired seat is reported beside it.
    big = routing.route_document(admin, purchase, chart.sam, Decimal("10000.00"))
    assert big.routable
    assert (big.steps[0].eligible, big.steps[0].other_gaps) == ((chart.hank,), (retired,))


def test_a_gap_only_above_the_amount_is_reported_apart_and_does_not_stop_it(acme, chart, purchase):
    admin = acme.admin.actor
    retire_position(admin, chart.head)  # the unit head's seat: only purchases from 10000.00 need it

    small = routing.route_document(admin, purchase, chart.sam, Decimal("9999.99"))
    assert small.routable
    assert small.steps[0].eligible == (chart.lee,)
    retired = Gap(GapReason.POSITION_RETIRED, position_id=chart.head)
    assert small.steps[0].other_gaps == (retired,)

    big = routing.route_document(admin, purchase, chart.sam, Decimal("10000.00"))
    assert not big.routable
    assert (big.steps[0].gaps, big.steps[0].other_gaps) == ((retired,), ())


def test_the_head_requesting_a_large_purchase_goes_to_the_ceo_or_nowhere(acme, chart, purchase):
    admin = acme.admin.actor
    route = routing.route_document(admin, purchase, chart.hank, Decimal("20000.00"))
    assert route.routable
    assert route.steps[0].eligible == (chart.cora,)

    services.end_holding(admin, chart.holdings["Cora Chief"], last_day=date(2026, 3, 15))

    route = routing.route_document(admin, purchase, chart.hank, Decimal("20000.00"))
    # Both grants reach 20000.00: his superior's seat is empty with nothing above it,
    # and his unit's head is himself.
    assert route.steps[0].gaps == (
        Gap(GapReason.VACANT, position_id=chart.ceo),
        Gap(GapReason.ONLY_THE_REQUESTER, member_id=chart.hank),
    )
    # A day when Cora still sat there, the route was whole.
    assert routing.route_document(
        admin, purchase, chart.hank, Decimal("20000.00"), on=date(2026, 3, 15)
    ).routable


# --- the routing preview -----------------------------------------------------------------------


def test_the_preview_answers_for_every_seeded_flow(acme, chart):
    admin = acme.admin.actor
    alice = acme.admin.member_id
    # The expense claim has exclusive approval, and Alice is this chart's only admin:
    # she commits the money, so nobody is left to pay it.
    expected = {
        seeded.EXPENSE_CLAIM: [
            ("reviewed", (chart.lee,)),
            ("approved", (chart.hank,)),
            ("category_verified", (alice,)),
            ("completed", ()),
        ],
        seeded.PURCHASE_REQUEST: [("approved", (chart.lee,))],
        seeded.LEAVE_REQUEST: [("approved", (chart.lee,))],
    }
    for kind, steps in expected.items():
        preview = route_preview.preview_route(
            admin, kind=kind, member_id=chart.sam, amount=Decimal("120.50"), currency="USD"
        )
        assert (preview.kind, preview.version, preview.currency) == (kind, 1, "USD")
        assert [(s.state, s.eligible) for s in preview.route.steps] == steps
        assert preview.requester_name == "Sam Staff"
        stranded = preview.route.first_gap()
        if kind == seeded.EXPENSE_CLAIM:
            assert stranded is not None
            assert (stranded[0].state, stranded[1].reason) == ("completed", "exclusive_approval")
            assert [(e.member, e.step, e.decided) for e in stranded[0].excluded] == [
                (alice, "category_verified", False)
            ]
        else:
            assert stranded is None, kind


def test_the_preview_names_the_people_and_seats_on_the_route(acme, chart):
    preview = route_preview.preview_route(
        acme.admin.actor,
        kind=seeded.PURCHASE_REQUEST,
        member_id=chart.sam,
        amount=Decimal("10000"),
        currency=" usd ",
    )

    assert preview.route.steps[0].eligible == (chart.hank,)
    assert preview.members == {
        chart.sam: "Sam Staff",
        chart.lee: "Lee Lead",
        chart.hank: "Hank Head",
    }
    assert preview.seat_of == {
        chart.sam: chart.staff,
        chart.lee: chart.lead,
        chart.hank: chart.head,
    }
    assert {p: s.code for p, s in preview.seats.items()} == {
        chart.staff: "STAFF",
        chart.lead: "LEAD",
        chart.head: "HEAD",
    }
    assert preview.units == {}


def test_the_preview_routes_as_of_the_day_asked(acme, chart):
    admin = acme.admin.actor
    kw = {"kind": seeded.LEAVE_REQUEST, "member_id": chart.sam, "amount": Decimal("0")}
    assert route_preview.preview_route(admin, **kw).route.steps[0].eligible == (chart.lee,)

    before = route_preview.preview_route(admin, on=VALID_FROM - timedelta(days=1), **kw)

    assert before.route.day == VALID_FROM - timedelta(days=1)
    assert _first_gap(before.route) == Gap(GapReason.NO_PRIMARY_POSITION, member_id=chart.sam)
    assert before.seat_of == {}


def test_the_preview_says_what_would_strand_a_document(acme, chart):
    admin = acme.admin.actor
    _make_head(admin, chart.ops_unit, None)
    _make_head(admin, chart.exec_unit, None)

    preview = route_preview.preview_route(
        admin, kind=seeded.PURCHASE_REQUEST, member_id=chart.sam, amount=Decimal("500")
    )

    assert preview.route.routable
    no_head = Gap(GapReason.NO_UNIT_HEAD, unit_id=chart.ops_unit)
    assert preview.route.steps[0].other_gaps == (no_head,)
    assert preview.units == {chart.ops_unit: "Operations"}
    stranded = route_preview.preview_route(
        admin, kind=seeded.PURCHASE_REQUEST, member_id=chart.sam, amount=Decimal("10000")
    )
    assert _first_gap(stranded.route) == no_head


def test_the_preview_refuses_amounts_that_are_not_money(acme, chart):
    admin = acme.admin.actor

    def preview(amount: str):
        return route_preview.preview_route(
            admin, kind=seeded.PURCHASE_REQUEST, member_id=chart.sam, amount=Decimal(amount)
        )

    assert preview("0").route.routable
    assert preview("0.01").route.routable
    assert preview("999999999999999.99").route.amount == Decimal("999999999999999.99")

    error = _refusal(preview, "-0.01")
    assert (error.code, error.field) == ("amount_negative", "amount")
    # Routed on what a document would store: USD has cents, no finer.
    error = _refusal(preview, "0.001")
    assert (error.code, error.field, error.params) == (
        "amount_too_precise",
        "amount",
        {"currency": "USD", "num": 2},
    )
    assert _refusal(preview, "NaN").code == "amount_invalid"
    error = _refusal(preview, "1e15")
    assert (error.code, error.params) == ("amount_too_large", {"limit": Decimal(10) ** 15})


def test_the_preview_refuses_a_foreign_currency(acme, chart):
    admin = acme.admin.actor
    kw = {"kind": seeded.PURCHASE_REQUEST, "member_id": chart.sam, "amount": Decimal("10")}
    assert route_preview.preview_route(admin, currency="usd", **kw).currency == "USD"

    error = _refusal(route_preview.preview_route, admin, currency="EUR", **kw)
    assert (error.code, error.field, error.params) == (
        "amount_currency_mismatch",
        "currency",
        {"currency": "EUR", "base": "USD"},
    )


def test_the_preview_refuses_an_unknown_or_another_orgs_requester(acme, globex, chart):
    admin = acme.admin.actor
    kw: dict[str, Any] = {"kind": seeded.LEAVE_REQUEST, "amount": Decimal("0")}
    assert route_preview.preview_route(
        globex.admin.actor, member_id=chart.glen, **kw
    ).route.routable

    for stranger in (chart.glen, chart.gina, 2**31 - 1):
        error = _refusal(route_preview.preview_route, admin, member_id=stranger, **kw)
        assert (error.code, error.field, error.params) == ("unknown_requester", "member_id", {})


def test_the_preview_refuses_an_inactive_requester(acme, chart):
    admin = acme.admin.actor
    kw = {"kind": seeded.LEAVE_REQUEST, "amount": Decimal("0"), "member_id": chart.cal}
    assert route_preview.preview_route(admin, **kw).requester_name == "Cal Crew"

    accounts.deactivate_member(admin, chart.cal)

    error = _refusal(route_preview.preview_route, admin, **kw)
    assert (error.code, error.field, error.params) == (
        "member_inactive",
        "member_id",
        {"name": "Cal Crew"},
    )


def test_the_preview_refuses_a_kind_with_no_published_version(acme, chart):
    admin = acme.admin.actor
    draft = replace(seeded.leave_request("USD"), kind="travel_request")
    drafts.save_draft(admin, "travel_request", draft, revision=0)
    kw = {"member_id": chart.sam, "amount": Decimal("0")}
    assert route_preview.preview_route(admin, kind=seeded.LEAVE_REQUEST, **kw).version == 1

    for kind in ("travel_request", "no_such_kind", "Not A Kind!"):
        error = _refusal(route_preview.preview_route, admin, kind=kind, **kw)
        assert (error.code, error.field) == ("unknown_flow", "kind")


def test_only_an_admin_may_preview(acme, make_member, chart):
    sam = make_member(acme.org, "Sid Staff").actor
    kw = {"kind": seeded.LEAVE_REQUEST, "member_id": chart.sam, "amount": Decimal("0")}
    assert route_preview.preview_route(acme.admin.actor, **kw).route.routable

    for call in (
        lambda: route_preview.preview_route(sam, **kw),
        lambda: route_preview.preview_choices(sam),
    ):
        with pytest.raises(Forbidden) as caught:
            call()
        assert caught.value.code == "admin_required"


def test_the_preview_offers_this_orgs_published_flows_and_active_members(acme, globex, chart):
    admin, gus = acme.admin.actor, globex.admin.actor
    # A kind only drafted here, and one globex has published, are not on offer.
    drafts.save_draft(
        admin,
        "travel_request",
        replace(seeded.leave_request("USD"), kind="travel_request"),
        revision=0,
    )
    theirs = drafts.save_draft(
        gus, "visit_request", replace(seeded.leave_request("USD"), kind="visit_request"), revision=0
    )
    publishing.publish_draft(gus, "visit_request", revision=theirs.revision)
    # A second version of leave requests is what the preview runs.
    leave = drafts.save_draft(admin, seeded.LEAVE_REQUEST, seeded.leave_request("USD"), revision=0)
    publishing.publish_draft(admin, seeded.LEAVE_REQUEST, revision=leave.revision)
    accounts.deactivate_member(admin, chart.cal)

    choices = route_preview.preview_choices(admin)

    assert [(f.kind, f.version) for f in choices.flows] == [
        (seeded.EXPENSE_CLAIM, 1),
        (seeded.LEAVE_REQUEST, 2),
        (seeded.PURCHASE_REQUEST, 1),
    ]
    assert choices.flows[0].labels["en"] == "Expense claim"
    assert [m.name for m in choices.members] == [
        "Alice Admin",
        "Cora Chief",
        "Hank Head",
        "Lee Lead",
        "Sam Staff",
    ]
    assert choices.members[0].id == acme.admin.member_id
    assert choices.currency == "USD"
    assert [f.kind for f in route_preview.preview_choices(gus).flows] == [
        seeded.EXPENSE_CLAIM,
        seeded.LEAVE_REQUEST,
        seeded.PURCHASE_REQUEST,
        "visit_request",
    ]
    assert (
        route_preview.preview_route(
            admin, kind=seeded.LEAVE_REQUEST, member_id=chart.sam, amount=Decimal("0")
        ).version
        == 2
    )
