"""When a document waits for its own requester (``domain.next_steps``), on the seeded
expense claim; and who a step reached only by escalating past a vacant seat
(``engine.escalations_of``)."""

from __future__ import annotations

from portal.domain.engine import escalations_of
from portal.domain.graph import GranteeKind
from portal.domain.next_steps import requester_next_steps, states_waiting_for_requester
from portal.domain.resolution import Gap, GapReason, resolve
from portal.flows.seeded.claims import expense_claim
from tests.domain.test_resolution import CEO, HEAD_SEAT, STAFF, org, to

CLAIM = expense_claim("MYR")


def _keys(state: str, *, submitted_before: bool = True) -> list[str]:
    return [t.key for t in requester_next_steps(CLAIM, state, submitted_before=submitted_before)]


def test_a_rejected_claim_waits_for_its_requester_to_revise_it():
    assert _keys("rejected") == ["revise"]  # withdrawing is a choice, not a step


def test_a_paid_claim_waits_for_its_requester_to_confirm_receipt():
    assert _keys("completed") == ["acknowledge"]  # a dispute is a choice, not a step


def test_a_draft_waits_only_once_it_came_back():
    assert _keys("draft", submitted_before=True) == ["submit"]
    assert _keys("draft", submitted_before=False) == []


def test_pending_and_terminal_states_wait_for_someone_else_or_nobody():
    for state in ("pending_review", "reviewed", "approved", "disputed", "received", "cancelled"):
        assert _keys(state) == [], state
    assert _keys("no_such_state") == []


def test_the_states_that_wait_are_known_per_graph():
    always, resubmitted = states_waiting_for_requester(CLAIM)
    assert always == {"rejected", "completed"}
    assert resubmitted == {"draft"}


def test_a_member_reached_past_a_vacant_seat_is_told_which():
    grant = to(GranteeKind.POSITION, position=HEAD_SEAT)
    filled = resolve(grant, STAFF, org().snapshot())
    assert escalations_of((0,), [filled]) == {}  # the allowed case: held, nothing to say

    escalated = resolve(grant, STAFF, org().vacate(HEAD_SEAT).snapshot())
    assert escalated.members == (CEO,)
    assert escalations_of((0,), [escalated]) == {CEO: Gap(GapReason.VACANT, position_id=HEAD_SEAT)}
    # Someone a winning grant names in their own right was not reached by escalation.
    direct = resolve(to(GranteeKind.MEMBER, member=CEO), STAFF, org().snapshot(), index=1)
    assert escalations_of((0, 1), [escalated, direct]) == {}
