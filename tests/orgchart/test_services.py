"""Editing and reading the org chart through its services, with globex always present."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from portal.accounts import services as accounts
from portal.domain.errors import DomainError, Forbidden, NotFound
from portal.orgchart import services
from portal.orgchart.models import HoldingKind
from portal.orgchart.services import pickers


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


def _unit(actor, code: str, parent_id: int | None = None):
    return services.create_unit(actor, code=code, name=f"{code} unit", parent_id=parent_id)


def _position(actor, code: str, unit_id: int, reports_to_id: int | None = None):
    return services.create_position(
        actor, code=code, title=f"{code} seat", unit_id=unit_id, reports_to_id=reports_to_id
    )


def _report(actor, position, reports_to_id: int | None, **changes):
    fields = {
        "code": position.code,
        "title": position.title,
        "unit_id": position.unit_id,
        "reports_to_id": reports_to_id,
        "active": position.active,
    }
    return services.update_position(actor, position.id, **{**fields, **changes})


def _set_unit(actor, unit, **changes):
    fields = {
        "code": unit.code,
        "name": unit.name,
        "parent_id": unit.parent_id,
        "head_position_id": unit.head_position_id,
    }
    return services.update_unit(actor, unit.id, **{**fields, **changes})


# --- units and positions -----------------------------------------------------------------------


def test_an_admin_creates_a_unit_and_a_position_that_show_on_the_chart(acme, globex):
    admin = acme.admin.actor
    hq = services.create_unit(admin, code=" HQ ", name="  Head   office ")
    fin = services.create_unit(admin, code="FIN", name="Finance", parent_id=hq.id)
    cfo = services.create_position(
        admin, code="CFO", title="Chief financial officer", unit_id=fin.id
    )
    clerk = services.create_position(
        admin, code="AP-1", title="Payables clerk", unit_id=fin.id, reports_to_id=cfo.id
    )

    assert (hq.code, hq.name, hq.parent_id) == ("HQ", "Head office", None)
    assert fin.org_id == acme.org.id
    chart = services.get_chart(admin)
    assert [(u.code, u.depth, u.parent_id) for u in chart.units] == [
        ("HQ", 0, None),
        ("FIN", 1, hq.id),
    ]
    assert sorted(p.code for p in chart.units[1].positions) == ["AP-1", "CFO"]
    assert chart.positions[clerk.id].reports_to_id == cfo.id
    assert services.get_unit(admin, fin.id).name == "Finance"
    assert services.get_position(admin, clerk.id).title == "Payables clerk"


def test_a_unit_code_already_used_is_refused_on_the_code_field(acme, globex):
    admin = acme.admin.actor
    _unit(globex.admin.actor, "OPS")  # the same code in another organization is no clash
    _unit(admin, "FIN")
    assert _unit(admin, "OPS").code == "OPS"

    error = _refusal(_unit, admin, "FIN")
    assert (error.code, error.field, error.params) == ("duplicate_code", "code", {"code": "FIN"})
    assert [u.code for u in services.get_chart(admin).units] == ["FIN", "OPS"]


def test_renaming_a_unit_to_a_code_already_used_is_refused(acme):
    admin = acme.admin.actor
    _unit(admin, "FIN")
    ops = _unit(admin, "OPS")
    assert _set_unit(admin, ops, name="Operations").code == "OPS"  # keeping its own code is fine

    error = _refusal(_set_unit, admin, ops, code="FIN")
    assert (error.code, error.field) == ("duplicate_code", "code")
    assert services.get_unit(admin, ops.id).code == "OPS"


def test_a_position_code_already_used_is_refused_on_the_code_field(acme):
    admin = acme.admin.actor
    fin = _unit(admin, "FIN")
    _position(admin, "CFO", fin.id)
    assert _position(admin, "CTO", fin.id).code == "CTO"

    error = _refusal(_position, admin, "CFO", fin.id)
    assert (error.code, error.field, error.params) == ("duplicate_code", "code", {"code": "CFO"})


def test_a_badly_shaped_code_or_blank_title_is_refused_before_anything_is_written(acme):
    admin = acme.admin.actor
    fin = _unit(admin, "FIN")
    assert _position(admin, "CFO", fin.id)

    assert _refusal(_position, admin, "no spaces", fin.id).code == "invalid_code"
    error = _refusal(services.create_position, admin, code="CTO", title="  ", unit_id=fin.id)
    assert (error.code, error.field) == ("name_required", "title")
    assert [p.code for p in services.get_chart(admin).positions.values()] == ["CFO"]


def test_a_position_cannot_report_to_itself(acme):
    admin = acme.admin.actor
    fin = _unit(admin, "FIN")
    cfo = _position(admin, "CFO", fin.id)
    clerk = _position(admin, "AP-1", fin.id)
    assert _report(admin, clerk, cfo.id).reports_to_id == cfo.id

    error = _refusal(_report, admin, clerk, clerk.id)
    assert (error.code, error.field) == ("reports_to_self", "reports_to_id")
    assert services.get_position(admin, clerk.id).reports_to_id == cfo.id


def test_a_position_cannot_report_to_one_below_it(acme):
    admin = acme.admin.actor
    fin = _unit(admin, "FIN")
    c = _position(admin, "C", fin.id)
    b = _position(admin, "B", fin.id, reports_to_id=c.id)
    a = _position(admin, "A", fin.id, reports_to_id=b.id)  # A -> B -> C
    d = _position(admin, "D", fin.id)
    c = _report(admin, c, d.id)  # C -> D is fine: D is not below C

    error = _refusal(_report, admin, c, a.id, title="Renamed in the refused edit")
    assert (error.code, error.field) == ("reporting_cycle", "reports_to_id")
    assert error.params == {"position": "C", "superior": "A"}
    unchanged = services.get_position(admin, c.id)
    assert (unchanged.reports_to_id, unchanged.title) == (d.id, "C seat")
    assert services.get_chart(admin).positions_on_cycle == set()


def test_a_unit_cannot_sit_under_its_own_descendant(acme):
    admin = acme.admin.actor
    x = _unit(admin, "X")
    y = _unit(admin, "Y", parent_id=x.id)
    z = _unit(admin, "Z", parent_id=y.id)  # Z under Y under X
    w = _unit(admin, "W")
    x = _set_unit(admin, x, parent_id=w.id)  # X under W is fine

    error = _refusal(_set_unit, admin, x, parent_id=z.id)
    assert (error.code, error.field) == ("unit_cycle", "parent_id")
    assert error.params == {"unit": "X", "parent": "Z"}
    assert services.get_unit(admin, x.id).parent_id == w.id


def test_a_unit_cannot_be_its_own_parent(acme):
    admin = acme.admin.actor
    x = _unit(admin, "X")
    w = _unit(admin, "W")
    assert _set_unit(admin, x, parent_id=w.id).parent_id == w.id

    error = _refusal(_set_unit, admin, x, parent_id=x.id)
    assert (error.code, error.field) == ("unit_parent_self", "parent_id")


def test_a_unit_head_must_be_a_position_of_that_unit(acme):
    admin = acme.admin.actor
    fin, ops = _unit(admin, "FIN"), _unit(admin, "OPS")
    cfo, coo = _position(admin, "CFO", fin.id), _position(admin, "COO", ops.id)
    fin = _set_unit(admin, fin, head_position_id=cfo.id)
    assert fin.head_position_id == cfo.id

    error = _refusal(_set_unit, admin, fin, head_position_id=coo.id)
    assert (error.code, error.field) == ("head_outside_unit", "head_position_id")
    assert services.get_unit(admin, fin.id).head_position_id == cfo.id


def test_a_head_position_cannot_be_moved_out_of_the_unit_it_heads(acme):
    admin = acme.admin.actor
    fin, ops = _unit(admin, "FIN"), _unit(admin, "OPS")
    cfo, deputy = _position(admin, "CFO", fin.id), _position(admin, "DEP", fin.id)
    _set_unit(admin, fin, head_position_id=cfo.id)
    assert _report(admin, deputy, None, unit_id=ops.id).unit_id == ops.id  # not a head: moves

    error = _refusal(_report, admin, cfo, None, unit_id=ops.id)
    assert (error.code, error.field) == ("head_outside_unit", "unit_id")
    assert services.get_position(admin, cfo.id).unit_id == fin.id


def test_a_retired_position_cannot_become_a_unit_head(acme):
    admin = acme.admin.actor
    fin = _unit(admin, "FIN")
    cfo, old = _position(admin, "CFO", fin.id), _position(admin, "OLD", fin.id)
    _report(admin, old, None, active=False)
    assert _set_unit(admin, fin, head_position_id=cfo.id).head_position_id == cfo.id

    error = _refusal(_set_unit, admin, fin, head_position_id=old.id)
    assert (error.code, error.field, error.params) == (
        "position_retired",
        "head_position_id",
        {"code": "OLD"},
    )


def test_nobody_can_be_seated_in_a_retired_position(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    fin = _unit(admin, "FIN")
    cfo, old = _position(admin, "CFO", fin.id), _position(admin, "OLD", fin.id)
    _report(admin, old, None, active=False)
    assert services.assign_position(admin, member_id=bob.member_id, position_id=cfo.id)

    error = _refusal(
        services.assign_position,
        admin,
        member_id=bob.member_id,
        position_id=old.id,
        kind=HoldingKind.SECONDARY,
    )
    assert (error.code, error.field) == ("position_retired", "position_id")
    assert services.get_chart(admin).positions[old.id].holders == []


# --- holdings ----------------------------------------------------------------------------------


def test_a_member_is_seated_in_a_primary_position_from_today_by_default(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    fin = _unit(admin, "FIN")
    cfo = _position(admin, "CFO", fin.id)

    holding = services.assign_position(admin, member_id=bob.member_id, position_id=cfo.id)

    assert (holding.kind, holding.valid_from, holding.valid_to) == ("primary", today, None)
    [holder] = services.get_chart(admin).positions[cfo.id].holders
    assert (holder.holding_id, holder.name, holder.kind) == (holding.id, "Bob Builder", "primary")


def test_a_second_primary_position_overlapping_the_first_is_refused(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    fin = _unit(admin, "FIN")
    cfo, cto, coo = (_position(admin, code, fin.id) for code in ("CFO", "CTO", "COO"))
    services.assign_position(
        admin,
        member_id=bob.member_id,
        position_id=cfo.id,
        valid_from=date(2026, 1, 1),
        valid_to=date(2026, 3, 31),
    )
    # A secondary seat alongside, and a primary that starts after the first ends, are fine.
    secondary = services.assign_position(
        admin,
        member_id=bob.member_id,
        position_id=cto.id,
        kind=HoldingKind.SECONDARY,
        valid_from=date(2026, 3, 1),
    )
    later = services.assign_position(
        admin, member_id=bob.member_id, position_id=coo.id, valid_from=date(2026, 4, 1)
    )
    assert (secondary.kind, later.kind) == ("secondary", "primary")

    error = _refusal(
        services.assign_position,
        admin,
        member_id=bob.member_id,
        position_id=cto.id,
        valid_from=date(2026, 3, 31),  # the first one's last day: inclusive, so it overlaps
        valid_to=date(2026, 3, 31),
    )
    assert (error.code, error.field) == ("overlapping_primary", "kind")
    assert error.params == {"name": "Bob Builder", "start": "2026-01-01"}
    holders = services.get_chart(admin, as_of=date(2026, 3, 31)).positions[cto.id].holders
    assert [h.kind for h in holders] == ["secondary"]


def test_a_holding_cannot_end_before_it_starts(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    fin = _unit(admin, "FIN")
    cfo, cto = _position(admin, "CFO", fin.id), _position(admin, "CTO", fin.id)
    one_day = services.assign_position(
        admin, member_id=bob.member_id, position_id=cfo.id, valid_from=today, valid_to=today
    )
    assert one_day.valid_to == today

    error = _refusal(
        services.assign_position,
        admin,
        member_id=bob.member_id,
        position_id=cto.id,
        kind=HoldingKind.SECONDARY,
        valid_from=today,
        valid_to=today - timedelta(days=1),
    )
    assert (error.code, error.field) == ("dates_out_of_order", "valid_to")
    assert services.get_chart(admin).positions[cto.id].holders == []


def test_an_unknown_holding_kind_is_refused(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    cfo = _position(admin, "CFO", _unit(admin, "FIN").id)
    assert services.assign_position(
        admin, member_id=bob.member_id, position_id=cfo.id, kind="secondary"
    )

    error = _refusal(
        services.assign_position, admin, member_id=bob.member_id, position_id=cfo.id, kind="boss"
    )
    assert (error.code, error.field) == ("invalid_holding_kind", "kind")


def test_an_inactive_member_cannot_be_seated(acme, make_member, today):
    admin = acme.admin.actor
    bob, carol = make_member(acme.org, "Bob Builder"), make_member(acme.org, "Carol Clerk")
    cfo = _position(admin, "CFO", _unit(admin, "FIN").id)
    accounts.deactivate_member(admin, carol.member_id)
    assert services.assign_position(admin, member_id=bob.member_id, position_id=cfo.id)

    error = _refusal(
        services.assign_position,
        admin,
        member_id=carol.member_id,
        position_id=cfo.id,
        kind=HoldingKind.SECONDARY,
    )
    assert (error.code, error.params) == ("member_inactive", {"name": "Carol Clerk"})


def test_ending_a_holding_keeps_its_history_and_frees_the_seat_afterwards(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    cfo = _position(admin, "CFO", _unit(admin, "FIN").id)
    holding = services.assign_position(
        admin, member_id=bob.member_id, position_id=cfo.id, valid_from=date(2026, 1, 1)
    )

    ended = services.end_holding(admin, holding.id)

    assert ended.valid_to == today
    assert [h.name for h in services.get_chart(admin).positions[cfo.id].holders] == ["Bob Builder"]
    tomorrow = services.get_chart(admin, as_of=today + timedelta(days=1))
    assert tomorrow.positions[cfo.id].holders == []
    assert tomorrow.positions[cfo.id].vacant


def test_a_holding_that_has_already_ended_cannot_be_ended_again(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    cfo = _position(admin, "CFO", _unit(admin, "FIN").id)
    holding = services.assign_position(
        admin, member_id=bob.member_id, position_id=cfo.id, valid_from=date(2026, 1, 1)
    )
    assert services.end_holding(admin, holding.id, last_day=date(2026, 2, 28)).valid_to == date(
        2026, 2, 28
    )

    error = _refusal(services.end_holding, admin, holding.id, last_day=date(2026, 3, 31))
    assert error.code == "holding_already_ended"


def test_a_holding_cannot_be_ended_before_its_first_day(acme, make_member, today):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    fin = _unit(admin, "FIN")
    cfo, cto = _position(admin, "CFO", fin.id), _position(admin, "CTO", fin.id)
    may = date(2026, 5, 1)
    one_day = services.assign_position(
        admin, member_id=bob.member_id, position_id=cfo.id, valid_from=may
    )
    assert services.end_holding(admin, one_day.id, last_day=may).valid_to == may  # same day: fine
    later = services.assign_position(
        admin, member_id=bob.member_id, position_id=cto.id, kind="secondary", valid_from=may
    )

    error = _refusal(services.end_holding, admin, later.id, last_day=date(2026, 4, 30))
    assert (error.code, error.field) == ("dates_out_of_order", "valid_to")
    assert [h.valid_to for h in services.get_chart(admin, as_of=may).positions[cto.id].holders] == [
        None
    ]


# --- reading the chart as of a day -------------------------------------------------------------


def test_the_chart_as_of_a_day_shows_only_the_holdings_valid_that_day(acme, make_member, today):
    admin = acme.admin.actor
    bob, carol = make_member(acme.org, "Bob Builder"), make_member(acme.org, "Carol Clerk")
    cfo = _position(admin, "CFO", _unit(admin, "FIN").id)
    services.assign_position(
        admin,
        member_id=bob.member_id,
        position_id=cfo.id,
        valid_from=date(2026, 1, 1),
        valid_to=date(2026, 1, 31),
    )
    services.assign_position(
        admin, member_id=carol.member_id, position_id=cfo.id, valid_from=date(2026, 2, 1)
    )

    def holders(day: date) -> list[str]:
        return [h.name for h in services.get_chart(admin, as_of=day).positions[cfo.id].holders]

    assert holders(date(2025, 12, 31)) == []
    assert holders(date(2026, 1, 1)) == ["Bob Builder"]
    assert holders(date(2026, 1, 31)) == ["Bob Builder"]
    assert holders(date(2026, 2, 1)) == ["Carol Clerk"]
    assert holders(today) == ["Carol Clerk"]
    assert services.get_chart(admin).as_of == today


def test_chart_health_lists_vacant_seats_headless_units_and_members_without_a_primary_seat(
    acme, make_member, today
):
    admin = acme.admin.actor
    bob, carol = make_member(acme.org, "Bob Builder"), make_member(acme.org, "Carol Clerk")
    dave = make_member(acme.org, "Dave Departed")
    fin, ops = _unit(admin, "FIN"), _unit(admin, "OPS")
    cfo, clerk = _position(admin, "CFO", fin.id), _position(admin, "AP-1", fin.id)
    coo, old = _position(admin, "COO", ops.id), _position(admin, "OLD", ops.id)
    _set_unit(admin, fin, head_position_id=cfo.id)
    _report(admin, old, None, active=False)
    services.assign_position(admin, member_id=bob.member_id, position_id=cfo.id)
    services.assign_position(
        admin, member_id=carol.member_id, position_id=clerk.id, kind=HoldingKind.SECONDARY
    )
    services.assign_position(admin, member_id=dave.member_id, position_id=coo.id)
    accounts.deactivate_member(admin, dave.member_id)

    chart = services.get_chart(admin)

    # COO's only holder is inactive, so it is vacant; a retired seat is never "vacant".
    assert sorted(p.code for p in chart.vacant_positions) == ["COO"]
    assert [u.code for u in chart.units_without_head] == ["OPS"]
    assert [name for _, name in chart.members_without_primary] == ["Alice Admin", "Carol Clerk"]
    assert chart.positions_on_cycle == set()


# --- who may edit, and what they may see -------------------------------------------------------


def test_only_an_admin_may_edit_the_chart(acme, make_member, today):
    admin = acme.admin.actor
    member = make_member(acme.org, "Mo Member").actor
    fin = _unit(admin, "FIN")
    cfo = _position(admin, "CFO", fin.id)
    holding = services.assign_position(admin, member_id=acme.admin.member_id, position_id=cfo.id)
    assert [u.code for u in services.get_chart(member).units] == ["FIN"]  # reading is allowed

    edits = [
        lambda: _unit(member, "OPS"),
        lambda: _set_unit(member, fin, name="Renamed"),
        lambda: _position(member, "CTO", fin.id),
        lambda: _report(member, cfo, None, title="Renamed"),
        lambda: services.assign_position(
            member, member_id=member.member_id, position_id=cfo.id, kind="secondary"
        ),
        lambda: services.end_holding(member, holding.id),
    ]
    for edit in edits:
        with pytest.raises(Forbidden) as caught:
            edit()
        assert caught.value.code == "admin_required"
    chart = services.get_chart(admin)
    assert [(u.code, u.name) for u in chart.units] == [("FIN", "FIN unit")]
    assert chart.positions[cfo.id].title == "CFO seat"
    assert [h.valid_to for h in chart.positions[cfo.id].holders] == [None]


def test_another_orgs_units_positions_and_holdings_cannot_be_reached_by_id(acme, globex, today):
    admin, gus = acme.admin.actor, globex.admin.actor
    g_unit = _unit(gus, "G-FIN")
    g_pos = _position(gus, "G-CFO", g_unit.id)
    g_holding = services.assign_position(
        gus, member_id=globex.admin.member_id, position_id=g_pos.id
    )
    a_unit = _unit(admin, "FIN")
    a_pos = _position(admin, "CFO", a_unit.id)
    assert services.get_unit(admin, a_unit.id).code == "FIN"
    assert services.get_position(admin, a_pos.id).code == "CFO"

    reaches = [
        lambda: services.get_unit(admin, g_unit.id),
        lambda: services.get_position(admin, g_pos.id),
        lambda: _set_unit(admin, g_unit, name="Taken over"),
        lambda: _report(admin, g_pos, None, unit_id=a_unit.id, title="Taken over"),
        lambda: _set_unit(admin, a_unit, parent_id=g_unit.id),
        lambda: _position(admin, "CTO", g_unit.id),
        lambda: _report(admin, a_pos, g_pos.id),
        lambda: services.assign_position(
            admin, member_id=acme.admin.member_id, position_id=g_pos.id
        ),
        lambda: services.assign_position(
            admin, member_id=globex.admin.member_id, position_id=a_pos.id
        ),
        lambda: services.end_holding(admin, g_holding.id),
    ]
    for reach in reaches:
        with pytest.raises(NotFound):
            reach()

    theirs = services.get_chart(gus)
    assert [u.name for u in theirs.units] == ["G-FIN unit"]
    assert theirs.positions[g_pos.id].title == "G-CFO seat"
    assert [h.valid_to for h in theirs.positions[g_pos.id].holders] == [None]


def test_another_orgs_chart_never_appears_in_this_one(acme, globex, make_member, today):
    admin, gus = acme.admin.actor, globex.admin.actor
    g_unit = _unit(gus, "G-FIN")
    g_pos = _position(gus, "G-CFO", g_unit.id)
    services.assign_position(gus, member_id=globex.admin.member_id, position_id=g_pos.id)
    _position(admin, "CFO", _unit(admin, "FIN").id)

    chart = services.get_chart(admin)

    assert [u.code for u in chart.units] == ["FIN"]
    assert [p.code for p in chart.positions.values()] == ["CFO"]
    assert [name for _, name in chart.members_without_primary] == ["Alice Admin"]
    assert all(c.label != "G-FIN — G-FIN unit" for c in pickers.position_form(admin).units)
    assert [c.label for c in pickers.holding_form(admin).positions] == ["CFO — CFO seat"]
    assert [c.id for c in pickers.holding_form(admin).members] == [acme.admin.member_id]
