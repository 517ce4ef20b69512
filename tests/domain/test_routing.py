"""The route of a document: who would decide each approval step, and what would strand it.

The story: a route walks the steps a document must pass, in the order the flow draws
them, each with its own grants and the all-states ones; a step is routable when the
band the amount reaches has someone other than the requester and no grant between the
winning floor and the amount found nobody (nothing is handed down to a smaller band);
other gaps are kept apart, for other amounts; and a refused route names the step and
the gap to fix first.

Charts are the hand-built ones of ``test_resolution``: CEO > HEAD > STAFF.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from portal.domain.graph import Gate, GranteeKind, Graph, PostingOrder, StateRole
from portal.domain.ladder import Band
from portal.domain.resolution import Gap, GapReason
from portal.domain.routing import route
from portal.flows.seeded import PURCHASE_UNIT_HEAD_FLOOR, purchase_request
from tests.domain.test_resolution import (
    CEO,
    CEO_SEAT,
    DAY,
    EXEC,
    HEAD,
    HEAD_SEAT,
    LONER,
    OPS,
    STAFF,
    STAFF_SEAT,
    Chart,
    org,
)
from tests.domain.test_validate import go, grant, label, state

# A seat between STAFF and HEAD, so the superior and the unit head are different people.
LEAD_SEAT, LEAD = 104, 1004
AUDITOR = 1005


def with_lead() -> Chart:
    """CEO > HEAD > LEAD > STAFF; HEAD still heads OPS."""
    return (
        org()
        .seat(LEAD_SEAT, "LEAD", OPS, reports_to=HEAD_SEAT)
        .seat(STAFF_SEAT, "STAFF", OPS, reports_to=LEAD_SEAT)
        .sit(LEAD, LEAD_SEAT)
        .role("auditor", AUDITOR)
    )


def two_steps() -> Graph:
    """draft -> submitted -> checked -> approved, a rejection from each pending step.

    Grants: 0 checked <- superior; 1 every state <- the auditor role;
    2 approved <- the unit head.
    """
    return Graph(
        kind="expense_claim",
        labels=label("Expense claim"),
        posting_order=PostingOrder.ACCRUAL_FIRST,
        states=(
            state("draft", StateRole.DRAFT),
            state("submitted", StateRole.PENDING),
            state("checked", StateRole.PENDING),
            state("approved", StateRole.CUSTOM, terminal=True),
            state("rejected", StateRole.REJECTED, terminal=True),
        ),
        transitions=(
            go("submit", "draft", "submitted", Gate.REQUESTER),
            go("check", "submitted", "checked", Gate.TARGET),
            go("approve", "checked", "approved", Gate.TARGET),
            go("reject", "submitted", "rejected", Gate.ADVANCE, order=2),
            go("reject", "checked", "rejected", Gate.ADVANCE, order=2),
        ),
        grants=(
            grant("checked"),
            grant(None, GranteeKind.ROLE, role="auditor", all_states=True),
            grant("approved", GranteeKind.UNIT_HEAD, walk_up=True),
        ),
    )


PURCHASE = purchase_request("MYR")  # approved <- superior from 0, unit head from 10000
SMALL, LARGE = Decimal("100.00"), PURCHASE_UNIT_HEAD_FLOOR


def test_the_steps_are_the_approval_states_in_drawing_order_with_the_all_states_grants():
    steps = route(two_steps(), STAFF, SMALL, with_lead().snapshot()).steps
    assert [s.state for s in steps] == ["checked", "approved"]
    assert [[r.index for r in s.resolutions] for s in steps] == [[0, 1], [1, 2]]


def test_a_route_with_someone_to_decide_every_step_is_routable():
    found = route(two_steps(), STAFF, SMALL, with_lead().snapshot())
    assert (found.requester, found.amount, found.day) == (STAFF, SMALL, DAY)
    assert found.routable
    assert found.first_gap() is None
    checked, approved = found.steps
    assert checked.band == Band(Decimal("0"), (LEAD, AUDITOR), (0, 1))
    assert approved.band == Band(Decimal("0"), (HEAD, AUDITOR), (1, 2))
    assert [(s.routable, s.eligible, s.gaps, s.other_gaps) for s in found.steps] == [
        (True, (LEAD, AUDITOR), (), ()),
        (True, (HEAD, AUDITOR), (), ()),
    ]


def test_the_band_the_amount_reaches_decides_the_step():
    chart = with_lead().snapshot()
    (small,) = route(PURCHASE, STAFF, LARGE - Decimal("0.01"), chart).steps
    (large,) = route(PURCHASE, STAFF, LARGE, chart).steps
    assert (small.state, small.routable, small.eligible) == ("approved", True, (LEAD,))
    assert (large.state, large.routable, large.eligible) == ("approved", True, (HEAD,))


def test_a_grant_beside_the_winning_band_that_finds_nobody_drops_out():
    assert route(two_steps(), STAFF, SMALL, with_lead().snapshot()).routable
    # LONER sits nowhere: no superior on checked, no unit head on approved. Both grants
    # share the zero floor with the auditor, who decides: the empty grants drop out.
    found = route(two_steps(), LONER, SMALL, with_lead().snapshot())
    no_seat = Gap(GapReason.NO_PRIMARY_POSITION, member_id=LONER)
    assert found.routable
    assert [(s.state, s.eligible, s.gaps, s.other_gaps) for s in found.steps] == [
        ("checked", (AUDITOR,), (), (no_seat,)),
        ("approved", (AUDITOR,), (), (no_seat,)),
    ]


def test_a_gap_that_would_hand_the_decision_down_stops_the_route_and_is_named_first():
    assert route(PURCHASE, STAFF, LARGE, with_lead().snapshot()).routable
    # LONER's large request: the unit head's band (from 10000) finds nobody, and the
    # superior's band below it finds nobody either; nothing may decide in their place.
    stranded = route(PURCHASE, LONER, LARGE, with_lead().snapshot())
    no_seat = Gap(GapReason.NO_PRIMARY_POSITION, member_id=LONER)
    assert not stranded.routable
    found = stranded.first_gap()
    assert found is not None
    step, first = found
    assert (step.state, first) == ("approved", no_seat)
    assert step.band is None and step.eligible == ()


def test_a_gap_below_the_winning_floor_does_not_stop_the_step():
    # STAFF's superior seat is retired; at 10000 the unit head's band wins, so the
    # superior's grant (a lower band) does not matter to this amount: it is reported
    # for smaller ones.
    (step,) = route(PURCHASE, STAFF, LARGE, with_lead().retire(LEAD_SEAT).snapshot()).steps
    retired = Gap(GapReason.POSITION_RETIRED, position_id=LEAD_SEAT)
    assert (step.routable, step.eligible, step.gaps) == (True, (HEAD,), ())
    assert step.other_gaps == (retired,)
    # A smaller amount is stranded by it.
    (small,) = route(PURCHASE, STAFF, SMALL, with_lead().retire(LEAD_SEAT).snapshot()).steps
    assert (small.routable, small.gaps) == (False, (retired,))


def test_a_gap_above_the_amount_is_kept_apart_and_the_step_stays_routable():
    chart = with_lead().headless(OPS, EXEC).snapshot()
    no_head = Gap(GapReason.NO_UNIT_HEAD, unit_id=OPS)
    (small,) = route(PURCHASE, STAFF, SMALL, chart).steps
    assert (small.routable, small.eligible, small.gaps) == (True, (LEAD,), ())
    assert small.other_gaps == (no_head,)
    # The same gap strands a document large enough to reach it.
    large = route(PURCHASE, STAFF, LARGE, chart)
    assert not large.routable
    assert large.steps[0].other_gaps == ()
    assert large.first_gap() == (large.steps[0], no_head)


def test_a_band_holding_only_the_requester_leaves_the_step_to_nobody():
    graph = replace(PURCHASE, grants=(grant("approved", GranteeKind.MEMBER, member=HEAD),))
    chart = org().snapshot()
    (step,) = route(graph, STAFF, SMALL, chart).steps
    assert (step.routable, step.eligible) == (True, (HEAD,))
    (step,) = route(graph, HEAD, SMALL, chart).steps
    assert step.band == Band(Decimal("0"), (), (0,))
    assert not step.routable
    assert step.gaps == (Gap(GapReason.ONLY_THE_REQUESTER, member_id=HEAD),)


def test_a_requester_resolving_to_themselves_with_nobody_above_cannot_route():
    graph = replace(PURCHASE, grants=(grant("approved", GranteeKind.UNIT_HEAD, walk_up=True),))
    assert route(graph, HEAD, SMALL, org().snapshot()).steps[0].eligible == (CEO,)
    (step,) = route(graph, CEO, SMALL, org().snapshot()).steps
    assert step.band is None
    assert step.gaps == (Gap(GapReason.ONLY_THE_REQUESTER, member_id=CEO),)
    assert step.resolutions[0].position_id == CEO_SEAT


def test_a_step_whose_grants_all_sit_above_the_amount_has_no_band():
    unit_head_only = replace(PURCHASE, grants=PURCHASE.grants[1:])
    chart = org().snapshot()
    assert route(unit_head_only, STAFF, LARGE, chart).routable
    (step,) = route(unit_head_only, STAFF, LARGE - Decimal("0.01"), chart).steps
    assert step.band is None
    assert (step.routable, step.eligible) == (False, ())
    assert step.gaps == (Gap(GapReason.NO_BAND),)
    assert step.other_gaps == ()
