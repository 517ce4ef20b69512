"""Grantee resolution: who a grant points at, for one requester, on one day.

The story: each kind of grantee finds the people the chart says it should; a seat
nobody sits in escalates up the chart as far as the grant allows, or is a gap naming
the seat; retired seats, departed members, missing seats and empty roles are gaps that
say what to fix, never a silent "nobody"; and nobody ever approves their own document.

Every chart here is built by hand, so the rules are read without an app or a database:

    units:  EXEC (head: CEO's seat) > OPS (head: HEAD's seat)
    seats:  CEO (EXEC) > HEAD (OPS) > STAFF (OPS)
    people: CEO, HEAD, STAFF sit primarily in their seats; LONER is active, seated nowhere
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from portal.domain.graph import Grant, GranteeKind, OnVacancy
from portal.domain.orgchart import ChartSnapshot, Seat, Unit
from portal.domain.resolution import Gap, GapReason, Resolution, resolve, resolve_all
from tests.domain.test_validate import grant

DAY = date(2026, 3, 2)

# Units, seats and members have distinct ids, so a gap naming the wrong kind of thing
# cannot pass by coincidence.
EXEC, OPS = 1, 2
CEO_SEAT, HEAD_SEAT, STAFF_SEAT = 101, 102, 103
CEO, HEAD, STAFF, LONER = 1001, 1002, 1003, 1009


class Chart:
    """An org chart on ``DAY``, built by hand into the snapshot resolution reads.

    Like the loader (``portal.orgchart.queries.load_chart``), the snapshot's holders,
    primaries and roles are **active members only**: a holding can outlive its membership,
    and the loader drops it, so resolution never sees someone who has left in a seat.
    """

    def __init__(self) -> None:
        self.seats: dict[int, Seat] = {}
        self.units: dict[int, Unit] = {}
        self.sittings: list[tuple[int, int, bool]] = []  # member, seat, primary
        self.members: set[int] = set()
        self.departed: set[int] = set()
        self.role_holders: dict[str, set[int]] = {}

    def unit(
        self, unit_id: int, code: str, *, parent: int | None = None, head: int | None = None
    ) -> Chart:
        self.units[unit_id] = Unit(unit_id, code, code.title(), parent, head)
        return self

    def seat(
        self, seat_id: int, code: str, unit_id: int, *, reports_to: int | None = None
    ) -> Chart:
        self.seats[seat_id] = Seat(seat_id, code, code.title(), unit_id, reports_to)
        return self

    def member(self, member: int) -> Chart:
        self.members.add(member)
        return self

    def sit(self, member: int, seat_id: int, *, primary: bool = True) -> Chart:
        self.members.add(member)
        self.sittings.append((member, seat_id, primary))
        return self

    def role(self, role: str, *members: int) -> Chart:
        for member in members:
            self.members.add(member)
            self.role_holders.setdefault(role, set()).add(member)
        return self

    def vacate(self, seat_id: int) -> Chart:
        self.sittings = [s for s in self.sittings if s[1] != seat_id]
        return self

    def retire(self, seat_id: int) -> Chart:
        """The seat keeps its holders on record; it just no longer counts."""
        self.seats[seat_id] = replace(self.seats[seat_id], active=False)
        return self

    def headless(self, *unit_ids: int) -> Chart:
        for unit_id in unit_ids:
            self.units[unit_id] = replace(self.units[unit_id], head_position_id=None)
        return self

    def leave(self, member: int) -> Chart:
        """The member leaves the organization; their holdings stay on record."""
        self.departed.add(member)
        return self

    def snapshot(self) -> ChartSnapshot:
        active = frozenset(self.members - self.departed)
        holders: dict[int, set[int]] = {}
        primary: dict[int, int] = {}
        for member, seat_id, is_primary in self.sittings:
            if member not in active:
                continue  # what the loader does: a holding can outlive its membership
            holders.setdefault(seat_id, set()).add(member)
            if is_primary:
                primary.setdefault(member, seat_id)
        return ChartSnapshot(
            day=DAY,
            seats=dict(self.seats),
            units=dict(self.units),
            holders={seat_id: tuple(sorted(ms)) for seat_id, ms in holders.items()},
            primary=primary,
            active_members=active,
            roles={role: tuple(sorted(ms & active)) for role, ms in self.role_holders.items()},
        )


def org() -> Chart:
    """CEO > HEAD > STAFF, one person in each seat; EXEC > OPS, each with a head."""
    return (
        Chart()
        .unit(EXEC, "EXEC", head=CEO_SEAT)
        .unit(OPS, "OPS", parent=EXEC, head=HEAD_SEAT)
        .seat(CEO_SEAT, "CEO", EXEC)
        .seat(HEAD_SEAT, "HEAD", OPS, reports_to=CEO_SEAT)
        .seat(STAFF_SEAT, "STAFF", OPS, reports_to=HEAD_SEAT)
        .sit(CEO, CEO_SEAT)
        .sit(HEAD, HEAD_SEAT)
        .sit(STAFF, STAFF_SEAT)
        .member(LONER)
    )


def to(kind: str, **kw: Any) -> Grant:
    """A grant on the ``approved`` step."""
    return grant("approved", kind, **kw)


def found(g: Grant, members: tuple[int, ...], position_id: int | None = None) -> Resolution:
    """What a grant that found its people without escalating resolves to."""
    return Resolution(g, 0, members, position_id)


def gap(g: Grant, reason: str, **about: Any) -> Resolution:
    """What a grant that found nobody resolves to."""
    return Resolution(g, 0, (), gap=Gap(reason, **about))


@contextmanager
def finishes_within(seconds: float) -> Iterator[None]:
    """Fail, instead of hanging the suite, when the body walks forever."""

    def stop(signum: int, frame: object) -> None:
        raise AssertionError(f"still walking after {seconds}s: the walk has no end")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- each kind of grantee --------------------------------------------------------------


def test_a_member_grant_resolves_to_that_member():
    g = to(GranteeKind.MEMBER, member=CEO)
    assert resolve(g, STAFF, org().snapshot()) == found(g, (CEO,))


def test_a_position_grant_resolves_to_whoever_holds_the_seat():
    g = to(GranteeKind.POSITION, position=HEAD_SEAT)
    chart = org().sit(LONER, HEAD_SEAT, primary=False)
    assert resolve(g, STAFF, chart.snapshot()) == found(g, (HEAD, LONER), HEAD_SEAT)


def test_the_superior_holds_the_seat_above_the_requesters_primary_seat():
    g = to(GranteeKind.SUPERIOR)
    # STAFF also sits, secondarily, in a seat right under the CEO: only the primary counts.
    chart = org().seat(201, "ADVISER", EXEC, reports_to=CEO_SEAT).sit(STAFF, 201, primary=False)
    assert resolve(g, STAFF, chart.snapshot()) == found(g, (HEAD,), HEAD_SEAT)


def test_the_unit_head_holds_the_head_seat_of_the_requesters_unit():
    g = to(GranteeKind.UNIT_HEAD, walk_up=False)
    assert resolve(g, STAFF, org().snapshot()) == found(g, (HEAD,), HEAD_SEAT)


def test_a_unit_without_a_head_asks_the_parent_units_head_when_the_grant_walks_up():
    g = to(GranteeKind.UNIT_HEAD, walk_up=True)
    assert resolve(g, STAFF, org().headless(OPS).snapshot()) == found(g, (CEO,), CEO_SEAT)


def test_a_unit_without_a_head_is_a_no_unit_head_gap_when_the_grant_does_not_walk_up():
    g = to(GranteeKind.UNIT_HEAD, walk_up=False)
    assert resolve(g, STAFF, org().snapshot()).members == (HEAD,)
    assert resolve(g, STAFF, org().headless(OPS).snapshot()) == gap(
        g, GapReason.NO_UNIT_HEAD, unit_id=OPS
    )


def test_levels_up_counts_seats_above_the_requesters_primary_seat():
    one = to(GranteeKind.LEVELS_UP, levels=1)
    two = to(GranteeKind.LEVELS_UP, levels=2)
    chart = org().snapshot()
    assert resolve(one, STAFF, chart) == found(one, (HEAD,), HEAD_SEAT)
    assert resolve(two, STAFF, chart) == found(two, (CEO,), CEO_SEAT)


def test_a_role_grant_resolves_to_the_active_members_holding_the_role():
    g = to(GranteeKind.ROLE, role="auditor")
    chart = org().role("auditor", LONER, CEO)
    assert resolve(g, STAFF, chart.snapshot()) == found(g, (CEO, LONER))


def test_resolving_several_grants_keeps_their_order_and_their_index_in_the_graph():
    superior, head = to(GranteeKind.SUPERIOR), to(GranteeKind.UNIT_HEAD, walk_up=False)
    got = resolve_all([(4, superior), (7, head)], STAFF, org().snapshot())
    assert [(r.index, r.grant, r.members) for r in got] == [
        (4, superior, (HEAD,)),
        (7, head, (HEAD,)),
    ]


# --- vacant and retired seats ----------------------------------------------------------


def vacant_middle() -> Chart:
    """CEO > DEPUTY > MANAGER > STAFF, with DEPUTY and MANAGER empty."""
    return (
        org()
        .seat(201, "DEPUTY", OPS, reports_to=CEO_SEAT)
        .seat(202, "MANAGER", OPS, reports_to=201)
        .seat(STAFF_SEAT, "STAFF", OPS, reports_to=202)
    )


def test_a_vacant_seat_escalates_to_the_next_filled_seat_above_within_the_bound():
    g = to(GranteeKind.POSITION, position=202, max_escalation_levels=2)
    # MANAGER is empty, DEPUTY one up is empty, the CEO two up is there.
    assert resolve(g, STAFF, vacant_middle().snapshot()) == Resolution(
        g, 0, (CEO,), position_id=CEO_SEAT, escalated=True
    )


def test_an_unset_escalation_bound_is_two_levels():
    g = to(GranteeKind.POSITION, position=202)
    assert g.max_escalation_levels is None
    assert resolve(g, STAFF, vacant_middle().snapshot()).members == (CEO,)


def test_a_vacant_seat_does_not_escalate_beyond_the_bound():
    within = to(GranteeKind.POSITION, position=202, max_escalation_levels=2)
    beyond = to(GranteeKind.POSITION, position=202, max_escalation_levels=1)
    chart = vacant_middle().snapshot()
    assert resolve(within, STAFF, chart).members == (CEO,)
    assert resolve(beyond, STAFF, chart) == gap(beyond, GapReason.VACANT, position_id=202)


def test_a_vacant_superior_seat_escalates_up_the_chart():
    g = to(GranteeKind.SUPERIOR)
    assert resolve(g, STAFF, org().vacate(HEAD_SEAT).snapshot()) == Resolution(
        g, 0, (CEO,), position_id=CEO_SEAT, escalated=True
    )


def test_a_grant_that_refuses_on_vacancy_is_a_vacant_gap_naming_the_empty_seat():
    g = to(GranteeKind.POSITION, position=HEAD_SEAT, on_vacancy=OnVacancy.REFUSE)
    assert resolve(g, STAFF, org().snapshot()) == found(g, (HEAD,), HEAD_SEAT)
    # The CEO one seat up is there, and still not asked.
    assert resolve(g, STAFF, org().vacate(HEAD_SEAT).snapshot()) == gap(
        g, GapReason.VACANT, position_id=HEAD_SEAT
    )


def test_a_superior_grant_that_refuses_on_vacancy_names_the_empty_superior_seat():
    g = to(GranteeKind.SUPERIOR, on_vacancy=OnVacancy.REFUSE)
    assert resolve(g, STAFF, org().snapshot()).members == (HEAD,)
    assert resolve(g, STAFF, org().vacate(HEAD_SEAT).snapshot()) == gap(
        g, GapReason.VACANT, position_id=HEAD_SEAT
    )


def test_a_retired_seat_resolves_to_nobody_even_while_someone_still_holds_it():
    g = to(GranteeKind.POSITION, position=HEAD_SEAT)
    assert resolve(g, STAFF, org().snapshot()).members == (HEAD,)
    chart = org().retire(HEAD_SEAT).snapshot()
    assert chart.holders[HEAD_SEAT] == (HEAD,), "the holding is still on record"
    assert resolve(g, STAFF, chart) == gap(g, GapReason.POSITION_RETIRED, position_id=HEAD_SEAT)


def test_escalation_passes_over_a_retired_seat_to_the_next_filled_one():
    g = to(GranteeKind.POSITION, position=HEAD_SEAT)
    chart = (
        org()
        .seat(201, "DEPUTY", OPS, reports_to=CEO_SEAT)
        .sit(LONER, 201)
        .retire(201)
        .seat(HEAD_SEAT, "HEAD", OPS, reports_to=201)
        .vacate(HEAD_SEAT)
    )
    assert resolve(g, STAFF, chart.snapshot()) == Resolution(
        g, 0, (CEO,), position_id=CEO_SEAT, escalated=True
    )


# --- people who are gone, or were never placed -----------------------------------------


def test_a_member_grant_naming_an_inactive_member_is_a_member_inactive_gap():
    g = to(GranteeKind.MEMBER, member=HEAD)
    assert resolve(g, STAFF, org().snapshot()).members == (HEAD,)
    assert resolve(g, STAFF, org().leave(HEAD).snapshot()) == gap(
        g, GapReason.MEMBER_INACTIVE, member_id=HEAD
    )


def test_a_member_who_left_no_longer_holds_their_seat():
    # The loader keeps departed members out of the holders; the seat reads as vacant.
    refuse = to(GranteeKind.POSITION, position=HEAD_SEAT, on_vacancy=OnVacancy.REFUSE)
    escalate = to(GranteeKind.POSITION, position=HEAD_SEAT)
    assert resolve(refuse, STAFF, org().snapshot()).members == (HEAD,)
    chart = org().leave(HEAD).snapshot()
    assert chart.holders_of(HEAD_SEAT) == ()
    assert resolve(refuse, STAFF, chart) == gap(refuse, GapReason.VACANT, position_id=HEAD_SEAT)
    assert resolve(escalate, STAFF, chart).members == (CEO,)


def test_a_role_holder_who_left_no_longer_holds_the_role():
    g = to(GranteeKind.ROLE, role="auditor")
    chart = org().role("auditor", LONER, CEO).leave(LONER)
    assert resolve(g, STAFF, chart.snapshot()) == found(g, (CEO,))


@pytest.mark.parametrize(
    "g",
    [
        to(GranteeKind.SUPERIOR),
        to(GranteeKind.UNIT_HEAD, walk_up=True),
        to(GranteeKind.LEVELS_UP, levels=1),
    ],
    ids=lambda g: g.grantee.kind,
)
def test_a_requester_without_a_primary_seat_is_a_no_primary_position_gap_naming_them(g):
    assert resolve(g, STAFF, org().snapshot()).members == (HEAD,)
    # A secondary seat is not where a requester reports from.
    chart = org().sit(LONER, STAFF_SEAT, primary=False).snapshot()
    assert resolve(g, LONER, chart) == gap(g, GapReason.NO_PRIMARY_POSITION, member_id=LONER)


def test_levels_up_beyond_the_root_is_an_above_root_gap_naming_the_top_seat():
    two = to(GranteeKind.LEVELS_UP, levels=2)
    three = to(GranteeKind.LEVELS_UP, levels=3)
    assert resolve(two, STAFF, org().snapshot()).members == (CEO,)
    assert resolve(three, STAFF, org().snapshot()) == gap(
        three, GapReason.ABOVE_ROOT, position_id=CEO_SEAT
    )


def test_the_superior_of_the_top_seat_is_an_above_root_gap():
    g = to(GranteeKind.SUPERIOR)
    assert resolve(g, HEAD, org().snapshot()).members == (CEO,)
    assert resolve(g, CEO, org().snapshot()) == gap(g, GapReason.ABOVE_ROOT, position_id=CEO_SEAT)


def test_a_role_nobody_holds_is_a_role_empty_gap_naming_the_role():
    g = to(GranteeKind.ROLE, role="auditor")
    assert resolve(g, STAFF, org().role("auditor", LONER).snapshot()).members == (LONER,)
    assert resolve(g, STAFF, org().snapshot()) == gap(g, GapReason.ROLE_EMPTY, role="auditor")


# --- nobody approves their own document ------------------------------------------------


def test_a_requester_sharing_the_seat_is_left_out_and_the_others_remain():
    g = to(GranteeKind.POSITION, position=HEAD_SEAT)
    chart = org().sit(LONER, HEAD_SEAT, primary=False).snapshot()
    assert resolve(g, STAFF, chart).members == (HEAD, LONER)
    assert resolve(g, HEAD, chart) == found(g, (LONER,), HEAD_SEAT)


def test_a_grant_resolving_to_the_requester_alone_escalates_from_the_requesters_own_seat():
    g = to(GranteeKind.UNIT_HEAD, walk_up=False)
    assert resolve(g, STAFF, org().snapshot()).members == (HEAD,)
    # HEAD heads their own unit: the seat above HEAD's decides instead.
    assert resolve(g, HEAD, org().snapshot()) == Resolution(
        g, 0, (CEO,), position_id=CEO_SEAT, escalated=True
    )


def test_a_grant_resolving_to_the_requester_alone_with_nobody_above_is_only_the_requester():
    g = to(GranteeKind.UNIT_HEAD, walk_up=False)
    assert resolve(g, HEAD, org().snapshot()).members == (CEO,)
    # The CEO heads EXEC and has nobody above.
    assert resolve(g, CEO, org().snapshot()) == Resolution(
        g, 0, (), position_id=CEO_SEAT, gap=Gap(GapReason.ONLY_THE_REQUESTER, member_id=CEO)
    )


def test_a_member_grant_naming_the_requester_is_not_escalated():
    # It names a person, not a relationship: the band leaves the requester out later.
    g = to(GranteeKind.MEMBER, member=HEAD)
    assert resolve(g, HEAD, org().snapshot()) == found(g, (HEAD,))


# --- the shape of an answer ------------------------------------------------------------


def test_members_are_sorted_and_counted_once():
    seat = to(GranteeKind.POSITION, position=HEAD_SEAT)
    role = to(GranteeKind.ROLE, role="auditor")
    chart = replace(
        org().snapshot(),
        holders={HEAD_SEAT: (LONER, HEAD, LONER)},
        roles={"auditor": (LONER, CEO, LONER)},
    )
    assert resolve(seat, STAFF, chart).members == (HEAD, LONER)
    assert resolve(role, STAFF, chart).members == (CEO, LONER)


def test_a_chart_with_a_reporting_loop_is_walked_once_and_does_not_hang():
    # LOOP_A and LOOP_B report to each other, both empty; the requester sits under LOOP_A.
    chart = (
        org()
        .seat(201, "LOOP_A", OPS, reports_to=202)
        .seat(202, "LOOP_B", OPS, reports_to=201)
        .seat(203, "UNDER", OPS, reports_to=201)
        .sit(LONER, 203)
        .snapshot()
    )
    superior = to(GranteeKind.SUPERIOR)
    far = to(GranteeKind.LEVELS_UP, levels=5)
    with finishes_within(2):
        assert chart.chain_above(203) == [201, 202]
        assert chart.next_filled_above(201, 10) == (0, ())
        assert resolve(superior, LONER, chart) == gap(superior, GapReason.VACANT, position_id=201)
        assert resolve(far, LONER, chart) == gap(far, GapReason.ABOVE_ROOT, position_id=202)


def test_a_unit_loop_does_not_hang_a_unit_head_that_walks_up():
    chart = (
        org()
        .unit(3, "LEFT", parent=4)
        .unit(4, "RIGHT", parent=3)
        .seat(201, "LOST", 3, reports_to=CEO_SEAT)
        .sit(LONER, 201)
        .snapshot()
    )
    g = to(GranteeKind.UNIT_HEAD, walk_up=True)
    with finishes_within(2):
        assert resolve(g, LONER, chart) == gap(g, GapReason.NO_UNIT_HEAD, unit_id=3)


def test_a_resolution_is_recorded_as_plain_json():
    g = to(GranteeKind.POSITION, position=HEAD_SEAT, min_amount=Decimal("2000.00"))
    escalated = resolve(g, STAFF, org().vacate(HEAD_SEAT).snapshot(), index=3)
    assert escalated.to_json() == {
        "grant": 3,
        "grantee": "position",
        "floor": "2000.0000",
        "members": [CEO],
        "position_id": CEO_SEAT,
        "escalated": True,
        "gap": None,
    }
    stranded = resolve(to(GranteeKind.SUPERIOR), LONER, org().snapshot())
    assert stranded.to_json() == {
        "grant": 0,
        "grantee": "superior",
        "floor": "0.0000",
        "members": [],
        "position_id": None,
        "escalated": False,
        "gap": {"reason": "no_primary_position", "member_id": LONER},
    }
    assert json.loads(json.dumps(stranded.to_json())) == stranded.to_json()


def test_a_gap_is_recorded_with_its_reason_and_only_what_it_is_about():
    assert Gap(GapReason.VACANT, position_id=HEAD_SEAT).to_json() == {
        "reason": "vacant",
        "position_id": HEAD_SEAT,
    }
    assert Gap(GapReason.NO_UNIT_HEAD, unit_id=OPS).to_json() == {
        "reason": "no_unit_head",
        "unit_id": OPS,
    }
    assert Gap(GapReason.ROLE_EMPTY, role="auditor").to_json() == {
        "reason": "role_empty",
        "role": "auditor",
    }
    assert Gap(GapReason.NO_BAND).to_json() == {"reason": "no_band"}
