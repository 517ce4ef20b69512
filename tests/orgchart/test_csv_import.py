"""CSV import: units, then positions, then members; every bad row reported, all or nothing."""

from __future__ import annotations

from datetime import date

import pytest

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.accounts.services.joining import accept_as_account
from portal.core.uow import unit_of_work_for
from portal.domain.errors import DomainError, Forbidden, RowErrors
from portal.orgchart import services
from portal.orgchart.csv_import import ImportResult, import_rows_in
from portal.orgchart.csv_rows import parse_csv
from portal.orgchart.services import pickers
from tests.factories import join_by_invitation, open_invitation, retire_position, system_actor

UNITS = b"""code,name,parent_code
HQ,Head office,
FIN,Finance,HQ
OPS,Operations,HQ
"""

POSITIONS = b"""code,title,unit_code,reports_to_code,heads_unit
CEO,Chief executive,HQ,,yes
CFO,Chief financial officer,FIN,CEO,Yes
AP-1,Payables clerk,FIN,CFO,no
COO,Chief operating officer,OPS,CEO,
"""


def _members(admin_email: str) -> bytes:
    return f"""email,name,roles,position_code,holding,valid_from
{admin_email},Alice Admin,admin,CEO,primary,2026-01-01
bob@example.test,Bob Builder,,CFO,primary,2026-02-01
Carol@Example.test,Carol Clerk,auditor,AP-1,,
carol.x@example.test,Carol Extra,,CFO,secondary,2026-02-01
""".encode()


def import_csv(actor, kind: str, data: bytes) -> ImportResult:
    """A whole file checked and applied in one unit of work, as the worker's job does
    (tests/orgchart/test_import_worker.py runs the job itself)."""
    rows = parse_csv(data, kind)
    with unit_of_work_for(actor) as uow:
        return import_rows_in(uow, actor, kind, rows)


def _rows(error: RowErrors) -> list[tuple[int, str | None, str]]:
    return [(e.row, e.column, e.code) for e in error.rows]


def _refusal(actor, kind: str, data: bytes) -> DomainError:
    with pytest.raises(DomainError) as caught:
        import_csv(actor, kind, data)
    return caught.value


def _bad_rows(actor, kind: str, data: bytes) -> RowErrors:
    with pytest.raises(RowErrors) as caught:
        import_csv(actor, kind, data)
    return caught.value


def _retire(actor, code: str) -> None:
    [seat] = [p for p in services.get_chart(actor).positions.values() if p.code == code]
    retire_position(actor, seat.id)


def _import_structure(actor) -> None:
    import_csv(actor, "units", UNITS)
    import_csv(actor, "positions", POSITIONS)


# --- the happy path ----------------------------------------------------------------------------


NEWCOMERS = (
    ("bob@example.test", "Bob Builder"),
    ("carol@example.test", "Carol Clerk"),
    ("carol.x@example.test", "Carol Extra"),
)


def _all_join(org) -> None:
    for email, name in NEWCOMERS:
        join_by_invitation(org, email, name)


def test_units_positions_and_members_import_into_a_linked_chart(acme, globex, today):
    admin = acme.admin.actor
    import_csv(globex.admin.actor, "units", UNITS)  # the same codes, in another organization

    units = import_csv(admin, "units", UNITS)
    positions = import_csv(admin, "positions", POSITIONS)
    members = import_csv(admin, "members", _members(acme.admin.email))

    assert (units.created, units.updated) == (3, 0)
    assert (positions.created, positions.updated) == (4, 0)
    # Alice was already a member; the others are invited, and seated as they join.
    assert (members.created, members.updated, members.invited) == (0, 1, 3)
    before = services.get_chart(admin)
    assert [h.name for p in before.positions.values() for h in p.holders] == ["Alice Admin"]
    _all_join(acme.org)
    chart = services.get_chart(admin)
    unit = {u.code: u for u in chart.units}
    pos = {p.code: p for p in chart.positions.values()}
    assert [(u.code, u.depth) for u in chart.units] == [("HQ", 0), ("FIN", 1), ("OPS", 1)]
    assert unit["FIN"].parent_id == unit["OPS"].parent_id == unit["HQ"].id
    assert unit["HQ"].head_position_id == pos["CEO"].id
    assert unit["FIN"].head_position_id == pos["CFO"].id
    assert unit["OPS"].head_position_id is None  # an empty heads_unit means no
    assert pos["CFO"].reports_to_id == pos["CEO"].id
    assert pos["AP-1"].reports_to_id == pos["CFO"].id
    assert pos["AP-1"].unit_id == unit["FIN"].id

    def seated(code: str) -> list[tuple[str, str, date]]:
        return [(h.name, h.kind, h.valid_from) for h in pos[code].holders]

    assert seated("CEO") == [("Alice Admin", "primary", date(2026, 1, 1))]
    assert seated("CFO") == [
        ("Bob Builder", "primary", date(2026, 2, 1)),
        ("Carol Extra", "secondary", date(2026, 2, 1)),
    ]
    assert seated("AP-1") == [("Carol Clerk", "primary", today)]  # blank kind and date
    assert chart.vacant_positions == [pos["COO"]]
    assert [n for _, n in chart.members_without_primary] == ["Carol Extra"]


def test_new_people_are_invited_alike_whether_or_not_they_have_an_account(acme, globex, today):
    admin = acme.admin.actor
    accounts.create_user("erin@example.test", "Erin Existing", "erin's own password")
    accounts.enrol_member(system_actor(globex.org), email="erin@example.test")
    _import_structure(admin)
    data = _members(acme.admin.email) + b"erin@example.test,Erin Existing,,COO,,\n"

    result = import_csv(admin, "members", data)

    # Nobody gets a password from the import, and Erin's account elsewhere changes nothing.
    assert (result.invited, result.updated) == (4, 1)
    invited = [i.email for i in accounts.members_overview(admin).invitations]
    assert sorted(invited) == sorted([e for e, _ in NEWCOMERS] + ["erin@example.test"])
    assert "Erin Existing" not in [m.name for m in account_queries.list_members(admin)]
    # Erin accepts with the account she has; her seat was kept for her.
    erin = account_queries.find_user("erin@example.test")
    assert erin is not None
    accept_as_account(erin.id, open_invitation(acme.org, "erin@example.test")[1])
    coo = next(p for p in services.get_chart(admin).positions.values() if p.code == "COO")
    assert [h.name for h in coo.holders] == ["Erin Existing"]


def test_imported_roles_are_given_to_new_members(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)

    import_csv(admin, "members", _members(acme.admin.email))
    _all_join(acme.org)

    roles = {m.name: set(m.roles) for m in account_queries.list_members(admin)}
    assert roles["Carol Clerk"] == {"auditor"}
    assert roles["Bob Builder"] == set()


def test_re_importing_updates_units_and_positions_in_place(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)
    before = services.get_chart(admin)
    ids = {p.code: p.id for p in before.positions.values()}

    units = import_csv(
        admin, "units", b"code,name,parent_code\nHQ,Headquarters,\nOPS,Operations,FIN\n"
    )
    positions = import_csv(
        admin,
        "positions",
        b"code,title,unit_code,reports_to_code,heads_unit\n"
        b"AP-1,Accounts payable clerk,OPS,COO,no\nCOO,Chief operating officer,OPS,CEO,yes\n",
    )

    assert (units.created, units.updated) == (0, 2)
    assert (positions.created, positions.updated) == (0, 2)
    chart = services.get_chart(admin)
    unit = {u.code: u for u in chart.units}
    assert len(chart.units) == 3 and len(chart.positions) == 4
    assert unit["HQ"].name == "Headquarters"
    assert unit["OPS"].parent_id == unit["FIN"].id
    assert unit["OPS"].head_position_id == ids["COO"]
    clerk = chart.positions[ids["AP-1"]]
    assert (clerk.title, clerk.unit_id, clerk.reports_to_id) == (
        "Accounts payable clerk",
        unit["OPS"].id,
        ids["COO"],
    )


def test_re_importing_the_same_members_file_seats_nobody_twice(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)
    first = import_csv(admin, "members", _members(acme.admin.email))
    _all_join(acme.org)
    holders = {p.code: len(p.holders) for p in services.get_chart(admin).positions.values()}
    assert first.invited == 3

    again = import_csv(admin, "members", _members(acme.admin.email))

    assert (again.created, again.updated, again.invited) == (0, 4, 0)
    chart = services.get_chart(admin)
    assert {p.code: len(p.holders) for p in chart.positions.values()} == holders


def test_an_import_cannot_give_a_member_a_second_overlapping_primary_seat(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)
    import_csv(admin, "members", _members(acme.admin.email))
    _all_join(acme.org)
    # A further secondary seat is fine...
    assert (
        import_csv(
            admin,
            "members",
            b"email,name,position_code,holding\nbob@example.test,Bob Builder,COO,secondary\n",
        ).updated
        == 1
    )

    error = _bad_rows(
        admin,
        "members",
        b"email,name,position_code,holding\nbob@example.test,Bob Builder,AP-1,primary\n",
    )
    assert _rows(error) == [(2, "position_code", "overlapping_primary")]
    assert error.rows[0].params == {"name": "Bob Builder", "start": "2026-02-01"}


def test_an_import_cannot_seat_an_inactive_member(acme, make_member, today):
    admin = acme.admin.actor
    bob, dave = make_member(acme.org, "Bob Builder"), make_member(acme.org, "Dave Departed")
    _import_structure(admin)
    accounts.deactivate_member(admin, dave.member_id)
    header = b"email,name,position_code\n"
    assert import_csv(admin, "members", header + f"{bob.email},Bob,CFO\n".encode()).updated == 1

    error = _bad_rows(admin, "members", header + f"{dave.email},Dave,AP-1\n".encode())

    assert _rows(error) == [(2, "email", "member_inactive")]
    holders = [h.name for p in services.get_chart(admin).positions.values() for h in p.holders]
    assert holders == ["Bob Builder"]


# --- bad rows: every one reported, nothing applied ---------------------------------------------


def test_every_bad_unit_row_is_reported_and_no_unit_is_created(acme, today):
    admin = acme.admin.actor
    good = b"code,name,parent_code\nHQ,Head office,\nOPS,Operations,HQ\n"
    assert import_csv(admin, "units", good + b"LAB,Lab,OPS\n").created == 3
    admin_chart = [u.code for u in services.get_chart(admin).units]
    assert admin_chart == ["HQ", "OPS", "LAB"]

    bad = (
        b"code,name,parent_code\n"  # 1
        b"NEW,A good new unit,HQ\n"  # 2 fine on its own
        b",Nameless,HQ\n"  # 3
        b"FIN,,HQ\n"  # 4
        b"bad code,Bad,HQ\n"  # 5
        b"LEGAL,Legal,OPS\n"  # 6 fine on its own
        b"NEW,New again,HQ\n"  # 7
        b"MKT,Marketing,NOWHERE\n"  # 8
        b"A,Loop A,B\n"  # 9
        b"B,Loop B,A\n"  # 10
        b"SELF,Self,SELF\n"  # 11
        b"HQ,Head office,LAB\n"  # 12 LAB already sits under OPS, under HQ
    )
    error = _bad_rows(admin, "units", bad)

    assert _rows(error) == [
        (3, "code", "value_required"),
        (4, "name", "value_required"),
        (5, "code", "invalid_code"),
        (7, "code", "duplicate_in_file"),
        (8, "parent_code", "unknown_unit"),
        (9, "parent_code", "unit_cycle"),
        (10, "parent_code", "unit_cycle"),
        (11, "parent_code", "unit_parent_self"),
        (12, "parent_code", "unit_cycle"),
    ]
    assert len(error.rows) == 9
    assert error.rows[3].params == {"value": "NEW"}
    assert error.rows[4].params == {"code": "NOWHERE"}
    assert error.rows[8].params == {"unit": "HQ", "parent": "LAB"}
    chart = services.get_chart(admin)
    assert [(u.code, u.name) for u in chart.units] == [
        ("HQ", "Head office"),
        ("OPS", "Operations"),
        ("LAB", "Lab"),
    ]


def test_every_bad_position_row_is_reported_and_no_position_is_created(acme, today):
    admin = acme.admin.actor
    import_csv(admin, "units", UNITS)
    assert import_csv(admin, "positions", b"code,title,unit_code\nCEO,Chief,HQ\n").created == 1

    bad = (
        b"code,title,unit_code,reports_to_code,heads_unit\n"  # 1
        b"CFO,Chief financial officer,FIN,CEO,yes\n"  # 2 fine on its own
        b"CTO,Chief technology officer,NOPE,CEO,\n"  # 3
        b"AP-1,Clerk,FIN,GHOST,no\n"  # 4
        b"A,Seat A,FIN,B,\n"  # 5  A -> B -> C -> A
        b"B,Seat B,FIN,C,\n"  # 6
        b"C,Seat C,FIN,A,\n"  # 7
        b"X,Seat X,FIN,,maybe\n"  # 8
        b"CFO,Again,FIN,,no\n"  # 9
        b"Y,,FIN,,\n"  # 10
        b"Z,Seat Z,,,\n"  # 11
        b"Z Z,Seat ZZ,FIN,,\n"  # 12
    )
    error = _bad_rows(admin, "positions", bad)

    assert _rows(error) == [
        (3, "unit_code", "unknown_unit"),
        (4, "reports_to_code", "unknown_position"),
        (5, "reports_to_code", "reporting_cycle"),
        (6, "reports_to_code", "reporting_cycle"),
        (7, "reports_to_code", "reporting_cycle"),
        (8, "heads_unit", "invalid_boolean"),
        (9, "code", "duplicate_in_file"),
        (10, "title", "value_required"),
        (11, "unit_code", "value_required"),
        (12, "code", "invalid_code"),
    ]
    assert error.rows[2].params == {"position": "A", "superior": "B"}
    assert error.rows[5].params == {"value": "maybe"}
    chart = services.get_chart(admin)
    assert [p.code for p in chart.positions.values()] == ["CEO"]
    assert all(u.head_position_id is None for u in chart.units)


def test_an_import_cannot_close_a_loop_through_positions_already_on_the_chart(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)  # AP-1 -> CFO -> CEO
    header = b"code,title,unit_code,reports_to_code\n"
    assert import_csv(admin, "positions", header + b"CEO,Chief executive,HQ,\n").updated == 1

    error = _bad_rows(admin, "positions", header + b"CEO,Chief executive,HQ,AP-1\n")

    assert _rows(error) == [(2, "reports_to_code", "reporting_cycle")]
    chart = services.get_chart(admin)
    assert [p.reports_to_id for p in chart.positions.values() if p.code == "CEO"] == [None]


def test_an_import_keeps_unit_heads_active_and_inside_their_units(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)  # CFO heads FIN
    chart = services.get_chart(admin)
    cfo = next(p for p in chart.positions.values() if p.code == "CFO")
    _retire(admin, "AP-1")
    header = b"code,title,unit_code,reports_to_code,heads_unit\n"
    # Moving FIN's head is fine when the same file gives FIN another head.
    moved = header + b"CFO,Chief financial officer,OPS,CEO,no\nNEW,New head,FIN,CEO,yes\n"
    assert import_csv(admin, "positions", moved).created == 1
    assert import_csv(admin, "positions", header + b"CFO,CFO,FIN,CEO,yes\n").updated == 1

    moved_away = _bad_rows(admin, "positions", header + b"CFO,CFO,OPS,CEO,no\n")
    retired_head = _bad_rows(admin, "positions", header + b"AP-1,Clerk,FIN,,yes\n")

    assert _rows(moved_away) == [(2, "unit_code", "head_outside_unit")]
    assert _rows(retired_head) == [(2, "heads_unit", "position_retired")]
    after = services.get_chart(admin)
    fin = next(u for u in after.units if u.code == "FIN")
    assert fin.head_position_id == cfo.id
    assert after.positions[cfo.id].unit_id == fin.id


def test_every_bad_member_row_is_reported_and_nobody_is_added_or_seated(acme, today):
    admin = acme.admin.actor
    _import_structure(admin)
    _retire(admin, "COO")
    seat_zed = b"email,name,position_code\nzed@example.test,Zed Zero,CEO\n"
    assert import_csv(admin, "members", seat_zed).invited == 1
    join_by_invitation(acme.org, "zed@example.test", "Zed Zero")
    before = [c.label for c in pickers.holding_form(admin).members]

    bad = (
        b"email,name,roles,position_code,holding,valid_from\n"  # 1
        b"bob@example.test,Bob Builder,,CFO,primary,2026-01-01\n"  # 2 fine on its own
        b"not-an-email,Nobody,,,,\n"  # 3
        b"carol@example.test,Carol,boss,,,\n"  # 4
        b"dan@example.test,Dan,,GHOST,,\n"  # 5
        b"erin@example.test,Erin,,CFO,secondary,2026-13-01\n"  # 6
        b"BOB@example.test,Bob again,,AP-1,secondary,\n"  # 7
        b"fay@example.test,,,,,\n"  # 8
        b"gil@example.test,Gil,,CFO,boss,\n"  # 9
        b"hal@example.test,Hal,,COO,,\n"  # 10
        b"zed@example.test,Zed Zero,,,,\n"  # 11 already a member, and no seat to give
    )
    error = _bad_rows(admin, "members", bad)

    assert _rows(error) == [
        (3, "email", "invalid_email"),
        (4, "roles", "unknown_role"),
        (5, "position_code", "unknown_position"),
        (6, "valid_from", "invalid_date"),
        (7, "email", "duplicate_in_file"),
        (8, "name", "value_required"),
        (9, "holding", "invalid_holding_kind"),
        (10, "position_code", "position_retired"),
        (11, "email", "duplicate_email"),
    ]
    assert error.rows[1].params == {"role": "boss"}
    assert error.rows[3].params == {"value": "2026-13-01"}
    assert [c.label for c in pickers.holding_form(admin).members] == before
    assert account_queries.find_user("bob@example.test") is None
    chart = services.get_chart(admin)
    assert [h.name for p in chart.positions.values() for h in p.holders] == ["Zed Zero"]


def test_rows_are_numbered_as_a_spreadsheet_shows_them(acme, today):
    admin = acme.admin.actor
    header = b"code,name,parent_code\n"
    assert import_csv(admin, "units", header + b'HQ,"Head\noffice",\n').created == 1

    # A quoted cell over two lines is still one row; a blank line is a row of its own.
    error = _bad_rows(admin, "units", header + b'HQ,"Head\noffice",\n\nbad code,Bad,\n')

    assert _rows(error) == [(4, "code", "invalid_code")]


# --- files that cannot be read at all ----------------------------------------------------------


def test_a_file_that_is_not_utf8_is_refused_as_unreadable(acme, today):
    admin = acme.admin.actor
    assert import_csv(admin, "units", "code,name\nZRH,Zürich\n".encode()).created == 1

    error = _refusal(admin, "units", "code,name\nGVA,Genève\n".encode("latin-1"))
    assert (error.code, error.field) == ("csv_unreadable", "file")
    assert [u.name for u in services.get_chart(admin).units] == ["Zürich"]


def test_a_file_missing_required_columns_is_refused_naming_them(acme, today):
    admin = acme.admin.actor
    assert import_csv(admin, "units", b"\xef\xbb\xbfCode, Name \nHQ,Head office\n").created == 1

    error = _refusal(admin, "positions", b"code,name\nCFO,Chief\n")
    assert (error.code, error.field) == ("csv_missing_columns", "file")
    assert error.params == {"columns": "title, unit_code"}


def test_a_file_with_only_a_header_is_refused_as_empty(acme, today):
    admin = acme.admin.actor
    assert import_csv(admin, "units", b"code,name\nHQ,Head office\n").created == 1

    for data in (b"code,name\n", b"code,name\n\n , \n"):
        error = _refusal(admin, "units", data)
        assert (error.code, error.field) == ("csv_empty", "file")


def test_only_an_admin_may_import(acme, make_member, today):
    member = make_member(acme.org, "Mo Member").actor
    assert import_csv(acme.admin.actor, "units", b"code,name\nHQ,Head office\n").created == 1

    with pytest.raises(Forbidden) as caught:
        import_csv(member, "units", b"code,name\nFIN,Finance\n")
    assert caught.value.code == "admin_required"
    assert [u.code for u in services.get_chart(member).units] == ["HQ"]


def test_an_import_only_sees_and_writes_its_own_organization(acme, globex, today):
    gus = globex.admin.actor
    import_csv(gus, "units", b"code,name\nG-HQ,Globex head office\n")
    import_csv(gus, "positions", b"code,title,unit_code\nG-CEO,Globex chief,G-HQ\n")
    assert import_csv(acme.admin.actor, "units", b"code,name\nHQ,Head office\n").created == 1

    # Globex's codes are unknown to acme, whether as a parent, a unit or a seat.
    assert _rows(_bad_rows(acme.admin.actor, "units", b"code,name,parent_code\nX,X,G-HQ\n")) == [
        (2, "parent_code", "unknown_unit")
    ]
    assert _rows(_bad_rows(acme.admin.actor, "positions", b"code,title,unit_code\nX,X,G-HQ\n")) == [
        (2, "unit_code", "unknown_unit")
    ]
    assert _rows(
        _bad_rows(
            acme.admin.actor,
            "members",
            f"email,name,position_code\n{globex.admin.email},Gus,G-CEO\n".encode(),
        )
    ) == [(2, "position_code", "unknown_position")]
    # The same code in both organizations is two different units.
    assert import_csv(acme.admin.actor, "units", b"code,name\nG-HQ,Acme's own\n").created == 1
    assert [u.name for u in services.get_chart(gus).units] == ["Globex head office"]


def test_one_file_cannot_give_a_unit_two_heads(acme, today):
    admin = acme.admin.actor
    import_csv(admin, "units", UNITS)
    one_head = (
        b"code,title,unit_code,reports_to_code,heads_unit\nCFO,Chief financial officer,FIN,,yes\n"
    )
    assert import_csv(admin, "positions", one_head).created == 1

    two_heads = (
        b"code,title,unit_code,reports_to_code,heads_unit\n"
        b"CTRL,Controller,FIN,CFO,yes\n"
        b"TREAS,Treasurer,FIN,CFO,yes\n"
    )
    error = _bad_rows(admin, "positions", two_heads)
    assert _rows(error) == [(3, "heads_unit", "duplicate_in_file")]
    chart = services.get_chart(admin)
    assert sorted(p.code for p in chart.positions.values()) == ["CFO"]
