"""The walk up the chart that an escalation and a reassignment take (``domain.climb``):
from the holder's primary seat (or, once they are off the chart, their last one), past
vacant seats and members who may not decide, at most ``reach`` seats up; whoever
``authorize`` would refuse is never reached.

The chart: CEO > HEAD > LEAD > STAFF, one member in each seat, and two admins.
"""

from __future__ import annotations

from functools import partial

from portal.domain.actor import Role
from portal.domain.authority import authorize
from portal.domain.climb import Reached, climb, refusal_for
from portal.domain.dispute import raised_the_dispute
from portal.domain.messages import MESSAGES
from portal.domain.resolution import Gap, GapReason
from tests.domain.test_engine import (
    ADMIN,
    CLAIM,
    DISMISS,
    TREASURER,
    UPHOLD,
    doc,
    member,
    people,
    refusal,
)
from tests.domain.test_resolution import CEO, CEO_SEAT, HEAD, HEAD_SEAT, STAFF
from tests.domain.test_routing import LEAD, LEAD_SEAT


def _anyone(_member: int) -> str | None:
    return None


def test_the_seat_above_the_holders_primary_one_is_reached():
    assert climb(people().snapshot(), LEAD, 2, _anyone) == Reached(HEAD_SEAT, 1, (HEAD,))


def test_a_deactivated_holder_climbs_from_their_last_primary_seat():
    chart = people().leave(LEAD).snapshot()
    assert LEAD not in chart.primary
    assert climb(chart, LEAD, 2, _anyone, former_seat=LEAD_SEAT) == Reached(HEAD_SEAT, 1, (HEAD,))
    # Never seated: nowhere to climb from, and the gap names them.
    assert climb(chart, LEAD, 2, _anyone) == Gap(GapReason.NO_PRIMARY_POSITION, member_id=LEAD)
    # A seat that is not on the chart is no place to start either.
    assert climb(chart, LEAD, 2, _anyone, former_seat=999_999) == Gap(
        GapReason.NO_PRIMARY_POSITION, member_id=LEAD
    )


def test_a_holder_on_the_chart_climbs_from_their_seat_whatever_the_former_one():
    chart = people().snapshot()
    assert climb(chart, LEAD, 2, _anyone, former_seat=HEAD_SEAT) == Reached(HEAD_SEAT, 1, (HEAD,))


def test_no_reach_left_is_the_escalation_bound_gap_and_it_has_words():
    assert climb(people().snapshot(), LEAD, 0, _anyone) == Gap(
        GapReason.ESCALATION_BOUND, position_id=LEAD_SEAT
    )
    assert GapReason.ESCALATION_BOUND in GapReason.ALL
    assert GapReason.DISPUTE_RAISER in GapReason.ALL
    # Every reason a gap can give has a sentence, and it takes the names a gap carries.
    names = {"position": "LEAD", "member": "Lee", "unit": "OPS", "role": "admin"}
    for reason in GapReason.ALL:
        template = MESSAGES[f"gap_{reason}"]
        assert isinstance(template, str)
        assert "%(" not in template % names


def test_in_a_dispute_its_raiser_is_passed_over_and_another_holder_reached():
    chart = people().snapshot()
    # The allowed case: someone else raised it, so the seat above is reached.
    someone_else = refusal_for(CLAIM, "disputed", ["disputed"], STAFF, {}, dispute_raiser=CEO)
    assert climb(chart, LEAD, 2, someone_else) == Reached(HEAD_SEAT, 1, (HEAD,))
    # HEAD raised it: HEAD may not close it, the seat above HEAD's is reached.
    raised = refusal_for(CLAIM, "disputed", ["disputed"], STAFF, {}, dispute_raiser=HEAD)
    assert raised(HEAD) == GapReason.DISPUTE_RAISER
    assert raised(CEO) is None
    assert climb(chart, LEAD, 2, raised) == Reached(CEO_SEAT, 2, (CEO,))
    # Nobody else in reach: a gap naming the seat and the raiser.
    assert climb(chart, LEAD, 1, raised) == Gap(
        GapReason.DISPUTE_RAISER, position_id=HEAD_SEAT, member_id=HEAD
    )


def test_outside_a_dispute_its_raiser_is_not_refused():
    assert (
        refusal_for(CLAIM, "reviewed", ["approved"], STAFF, {}, dispute_raiser=HEAD)(HEAD) is None
    )
    assert not raised_the_dispute(CLAIM, "reviewed", HEAD, HEAD)
    assert not raised_the_dispute(CLAIM, "no_such_state", HEAD, HEAD)
    assert not raised_the_dispute(CLAIM, "disputed", None, None)


def test_the_climb_refuses_the_raiser_exactly_when_authorize_does():
    chart = people().snapshot()
    for raiser in (ADMIN, TREASURER, None):
        document = doc(CLAIM, "disputed", dispute_raiser=raiser)
        says = refusal_for(CLAIM, "disputed", ["disputed"], STAFF, {}, dispute_raiser=raiser)
        for closer in (ADMIN, TREASURER):
            for transition in (DISMISS, UPHOLD):
                decide = partial(
                    authorize, CLAIM, transition, document, member(closer, Role.ADMIN), chart
                )
                if closer == raiser:
                    assert refusal(decide).code == says(closer) == GapReason.DISPUTE_RAISER
                else:
                    assert decide().via == "grant" and says(closer) is None


def test_the_requester_is_never_reached():
    says = refusal_for(CLAIM, "reviewed", ["approved"], HEAD, {})
    assert says(HEAD) == GapReason.ONLY_THE_REQUESTER
    assert climb(people().snapshot(), LEAD, 1, says) == Gap(
        GapReason.ONLY_THE_REQUESTER, position_id=HEAD_SEAT, member_id=HEAD
    )
