"""The transition engine's rules, pure: may this actor take this transition now, on whose
authority, and what follows — or which refusal.

The story follows DESIGN §5: the page must show the current state, the transition must
leave it, a required comment must be there, the guard must hold (or the flow's own
message comes back, in the reader's language), and the actor must hold authority — the
requester for the requester's own steps, the winning band's members for the others,
never the requester on their own approval, never a dispute's raiser on closing it. Then
entering a state plans its tasks (or refuses, naming the gap that would strand the
document), money-moving states post, and every decision is chained by its hash.

Each test shows the allowed case first, so a refusal cannot pass for the wrong reason.
Charts are the hand-built ones of ``test_resolution`` with the lead of ``test_routing``,
plus two admins:

    seats:  CEO > HEAD (heads OPS) > LEAD > STAFF;  LONER is active, seated nowhere
    roles:  auditor: AUDITOR;  admin: ADMIN, TREASURER
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import Any, ParamSpec

import pytest

from portal.domain.actor import Role
from portal.domain.authority import Principal
from portal.domain.chain import GENESIS_HASH, decision_hash
from portal.domain.engine import (
    Authority,
    DocumentFacts,
    Posting,
    TaskPlan,
    TransitionRefused,
    Via,
    authorize,
    check_guard,
    check_route,
    plan_tasks,
    posting_of,
    require_transition,
)
from portal.domain.graph import Gate, GranteeKind, Graph, Transition, TransitionGuard
from portal.domain.labels import Labels
from portal.domain.orgchart import ChartSnapshot
from portal.domain.resolution import GapReason
from portal.flows.seeded import (
    PURCHASE_UNIT_HEAD_FLOOR,
    expense_claim,
    leave_request,
    purchase_request,
)
from tests.domain.test_resolution import CEO, EXEC, HEAD, LONER, OPS, STAFF, Chart
from tests.domain.test_routing import AUDITOR, LEAD, two_steps, with_lead
from tests.domain.test_validate import go, grant

ADMIN, TREASURER = 1006, 1007

CLAIM = expense_claim("MYR")
PURCHASE = purchase_request("MYR")  # approved <- superior from 0, unit head from 10000
LEAVE = leave_request("MYR")

SMALL, LARGE = Decimal("480.00"), PURCHASE_UNIT_HEAD_FLOOR
NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def people() -> Chart:
    """CEO > HEAD > LEAD > STAFF, an auditor, and two admins."""
    return with_lead().role(Role.ADMIN, ADMIN, TREASURER)


def chart() -> ChartSnapshot:
    return people().snapshot()


def doc(
    graph: Graph,
    state: str,
    *,
    amount: Decimal = SMALL,
    requester: int = STAFF,
    **kw: Any,
) -> DocumentFacts:
    return DocumentFacts(
        id=42,
        reference="DOC-2026-00042",
        kind=graph.kind,
        title="Client visit, Penang",
        amount=amount,
        currency="MYR",
        requester=requester,
        state=state,
        **kw,
    )


def member(member_id: int | None, *roles: str) -> Principal:
    return Principal(member_id, frozenset(roles), "OPS")


def exit_of(graph: Graph, state: str, key: str) -> Transition:
    found = graph.transition(state, key)
    assert found is not None, f"{key} does not leave {state}"
    return found


P = ParamSpec("P")


def refusal(call: Callable[[], object]) -> TransitionRefused:
    with pytest.raises(TransitionRefused) as caught:
        call()
    return caught.value


def allowed(check: Callable[P, None], *args: P.args, **kwargs: P.kwargs) -> bool:
    """A check lets the transition through when it returns (it refuses by raising)."""
    check(*args, **kwargs)
    return True


# --- step 2: the state the client saw, and the transition ------------------------------


def test_a_page_showing_the_current_state_finds_the_transition():
    found = require_transition(CLAIM, doc(CLAIM, "pending_review"), "review", "pending_review", "")
    assert (found.key, found.from_state, found.to_state) == ("review", "pending_review", "reviewed")


def test_a_stale_page_cannot_take_a_transition():
    # The page was rendered while the claim was still a draft; it has moved on since.
    document = doc(CLAIM, "pending_review")
    assert require_transition(CLAIM, document, "review", "pending_review", "").key == "review"
    refused = refusal(lambda: require_transition(CLAIM, document, "review", "draft", ""))
    assert refused.code == "stale_state"
    assert refused.params == {"seen": "draft", "current": "pending_review"}


def test_a_replayed_request_meets_stale_state_before_anything_else():
    # The second "submit" of a double click: the claim left draft, and submit no longer
    # leaves its state either; the stale page is the answer, not the missing transition.
    refused = refusal(
        lambda: require_transition(CLAIM, doc(CLAIM, "pending_review"), "submit", "draft", "")
    )
    assert refused.code == "stale_state"


def test_a_transition_that_does_not_leave_the_current_state_is_not_allowed():
    document = doc(CLAIM, "pending_review")
    assert require_transition(CLAIM, document, "review", "pending_review", "").key == "review"
    # "approve" exists in the flow, but it leaves "reviewed", not "pending_review".
    assert CLAIM.transition("reviewed", "approve") is not None
    for key in ("approve", "no_such_action"):
        refused = refusal(partial(require_transition, CLAIM, document, key, "pending_review", ""))
        assert refused.code == "transition_not_allowed"
        assert refused.params == {"transition": key, "state": "pending_review"}


# --- step 3: the comment -------------------------------------------------------------------


def test_a_transition_requiring_a_comment_passes_with_one():
    document = doc(CLAIM, "pending_review")
    found = require_transition(CLAIM, document, "reject", "pending_review", "Receipts missing.")
    assert found.to_state == "rejected"


@pytest.mark.parametrize("blank", ["", " ", "\t\n  "])
def test_a_transition_requiring_a_comment_is_refused_without_one(blank):
    document = doc(CLAIM, "pending_review")
    assert require_transition(CLAIM, document, "reject", "pending_review", "Receipts missing.")
    refused = refusal(
        lambda: require_transition(CLAIM, document, "reject", "pending_review", blank)
    )
    assert refused.code == "comment_required"
    assert refused.field == "comment"


def test_a_transition_with_an_optional_comment_passes_without_one():
    document = doc(CLAIM, "pending_review")
    assert require_transition(CLAIM, document, "review", "pending_review", "").key == "review"
    assert require_transition(CLAIM, document, "review", "pending_review", "  ").key == "review"


# --- step 4: the guard -----------------------------------------------------------------------

SUBMIT_PURCHASE = exit_of(PURCHASE, "draft", "submit")  # guard: document.amount > 0
SUBMIT_LEAVE = exit_of(LEAVE, "draft", "submit")  # guard: last_day >= first_day
NO_AMOUNT_EN = "A purchase request needs an amount above zero."
NO_AMOUNT_ZH = "采购申请的金额必须大于零。"


def test_a_transition_without_a_guard_is_open():
    review = exit_of(CLAIM, "pending_review", "review")
    assert review.guard is None
    assert allowed(check_guard, review, doc(CLAIM, "pending_review"), member(LEAD))


def test_a_true_guard_lets_the_transition_through():
    assert allowed(check_guard, SUBMIT_PURCHASE, doc(PURCHASE, "draft"), member(STAFF))


def test_a_false_guard_is_refused_with_the_flows_own_message():
    assert allowed(
        check_guard, SUBMIT_PURCHASE, doc(PURCHASE, "draft", amount=Decimal("0.01")), member(STAFF)
    )
    zero = doc(PURCHASE, "draft", amount=Decimal("0.00"))
    refused = refusal(lambda: check_guard(SUBMIT_PURCHASE, zero, member(STAFF)))
    assert refused.code == "guard_failed"
    assert refused.params == {"message": NO_AMOUNT_EN}


def test_the_guards_message_comes_in_the_readers_language_or_else_in_english():
    zero = doc(PURCHASE, "draft", amount=Decimal("0.00"))
    zh = refusal(lambda: check_guard(SUBMIT_PURCHASE, zero, member(STAFF), locale="zh"))
    assert (zh.code, zh.params["message"]) == ("guard_failed", NO_AMOUNT_ZH)
    # A language the flow has no message in falls back to English.
    fr = refusal(lambda: check_guard(SUBMIT_PURCHASE, zero, member(STAFF), locale="fr"))
    assert (fr.code, fr.params["message"]) == ("guard_failed", NO_AMOUNT_EN)
    # So does a translation left blank.
    blank_zh = guarded("document.amount > 0", zh=" ")
    refused = refusal(lambda: check_guard(blank_zh, zero, member(STAFF), locale="zh"))
    assert refused.params["message"] == "Nights must be positive."


def guarded(expression: str, **messages: str) -> Transition:
    """The purchase request's submit, with another guard."""
    labels = Labels({"en": "Nights must be positive.", **messages})
    return replace(SUBMIT_PURCHASE, guard=TransitionGuard(expression, labels))


NIGHTS = guarded("document.fields.nights > 0")


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"nights": "three"}, "a string compared with a number"),
        ({"nights": None}, "a field left empty"),
        ({}, "a field with no value at all"),
        ({"nights": {"n": 3}}, "a value the guard language has no type for"),
        ({"nights": float("nan")}, "not a number"),
    ],
)
def test_a_guard_that_cannot_be_evaluated_fails_closed_with_the_flows_message(fields, why):
    assert allowed(check_guard, NIGHTS, doc(PURCHASE, "draft", fields={"nights": 3}), member(STAFF))
    document = doc(PURCHASE, "draft", fields=fields)
    refused = refusal(lambda: check_guard(NIGHTS, document, member(STAFF)))
    assert refused.code == "guard_failed", why
    assert refused.params == {"message": "Nights must be positive."}


def test_a_float_field_is_read_as_the_decimal_it_prints_as():
    tenth = guarded("document.fields.rate == 0.1")
    assert allowed(check_guard, tenth, doc(PURCHASE, "draft", fields={"rate": 0.1}), member(STAFF))
    refused = refusal(
        lambda: check_guard(tenth, doc(PURCHASE, "draft", fields={"rate": 0.2}), member(STAFF))
    )
    assert refused.code == "guard_failed"


def test_a_guard_that_does_not_parse_fails_closed():
    assert allowed(
        check_guard, guarded("document.amount > 0"), doc(PURCHASE, "draft"), member(STAFF)
    )
    broken = guarded("document.amount >")
    refused = refusal(lambda: check_guard(broken, doc(PURCHASE, "draft"), member(STAFF)))
    assert refused.code == "guard_failed"


def test_a_guard_reads_the_acting_principal():
    admins_only = guarded('"admin" in principal.roles')
    assert allowed(check_guard, admins_only, doc(PURCHASE, "draft"), member(ADMIN, Role.ADMIN))
    refused = refusal(lambda: check_guard(admins_only, doc(PURCHASE, "draft"), member(STAFF)))
    assert refused.code == "guard_failed"


def leave(first_day: object, last_day: object) -> DocumentFacts:
    return doc(
        LEAVE, "draft", amount=Decimal(0), fields={"first_day": first_day, "last_day": last_day}
    )


@pytest.mark.parametrize(
    ("first_day", "last_day"),
    [
        ("2026-03-02", "2026-03-06"),
        ("2026-03-02", "2026-03-02"),  # one day of leave
        ("2026-02-27", "2026-03-02"),  # across a month
        ("2026-12-31", "2027-01-04"),  # across a year
        (date(2026, 3, 2), "2026-03-06"),  # a date object reads as its ISO string
    ],
)
def test_leave_ending_on_or_after_its_first_day_may_be_submitted(first_day, last_day):
    assert allowed(check_guard, SUBMIT_LEAVE, leave(first_day, last_day), member(STAFF))


@pytest.mark.parametrize(
    ("first_day", "last_day"),
    [
        ("2026-03-06", "2026-03-02"),
        ("2026-03-02", "2026-02-27"),
        ("2027-01-04", "2026-12-31"),
        (date(2026, 3, 2), date(2026, 3, 1)),
    ],
)
def test_leave_ending_before_its_first_day_is_refused_with_the_flows_message(first_day, last_day):
    assert allowed(check_guard, SUBMIT_LEAVE, leave(first_day, first_day), member(STAFF))
    refused = refusal(lambda: check_guard(SUBMIT_LEAVE, leave(first_day, last_day), member(STAFF)))
    assert refused.code == "guard_failed"
    assert refused.params == {"message": "The last day of leave cannot be before the first."}


def test_leave_without_a_last_day_fails_closed():
    assert allowed(check_guard, SUBMIT_LEAVE, leave("2026-03-02", "2026-03-03"), member(STAFF))
    no_end = doc(LEAVE, "draft", amount=Decimal(0), fields={"first_day": "2026-03-02"})
    assert refusal(lambda: check_guard(SUBMIT_LEAVE, no_end, member(STAFF))).code == "guard_failed"


# --- step 5: authority -------------------------------------------------------------------------

APPROVE_PURCHASE = exit_of(PURCHASE, "submitted", "approve")  # target gate
REJECT_PURCHASE = exit_of(PURCHASE, "submitted", "reject")  # advance gate


def test_the_requester_takes_the_requesters_own_steps():
    submit = exit_of(CLAIM, "draft", "submit")
    authority = authorize(CLAIM, submit, doc(CLAIM, "draft"), member(STAFF), chart())
    assert authority == Authority(Via.REQUESTER, STAFF, None, None, (STAFF,), ())


@pytest.mark.parametrize(
    "other", [LEAD, HEAD, ADMIN, None], ids=["lead", "head", "admin", "system"]
)
def test_nobody_but_the_requester_takes_the_requesters_steps(other):
    submit = exit_of(CLAIM, "draft", "submit")
    document = doc(CLAIM, "draft")
    assert authorize(CLAIM, submit, document, member(STAFF), chart()).via == Via.REQUESTER
    refused = refusal(
        lambda: authorize(CLAIM, submit, document, member(other, Role.ADMIN), chart())
    )
    assert refused.code == "not_requester"


def test_a_member_of_the_winning_band_decides_on_the_grants_authority():
    document = doc(PURCHASE, "submitted")
    authority = authorize(PURCHASE, APPROVE_PURCHASE, document, member(LEAD), chart())
    assert (authority.via, authority.authority_member) == (Via.GRANT, LEAD)
    assert authority.gate_state == "approved"
    assert authority.winning_floor == Decimal("0.00")
    assert authority.eligible == (LEAD,)
    # The whole resolution as it stood, the unit head's band (above the amount) included.
    assert [(r.index, r.members, r.gap) for r in authority.resolution] == [
        (0, (LEAD,), None),
        (1, (HEAD,), None),
    ]
    assert [r.floor for r in authority.resolution] == [Decimal("0.00"), LARGE]


def test_nobody_approves_their_own_document():
    document = doc(PURCHASE, "submitted")
    assert authorize(PURCHASE, APPROVE_PURCHASE, document, member(LEAD), chart()).via == Via.GRANT
    refused = refusal(
        lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, member(STAFF), chart())
    )
    assert refused.code == "self_approval"


def test_a_requester_holding_a_task_still_cannot_approve_their_own_document():
    # An admin's own claim, at the step the admins decide: the band leaves them out, and
    # a task handed to them (by mistake) lends them nothing on their own document.
    pay = exit_of(CLAIM, "category_verified", "pay")
    document = doc(CLAIM, "category_verified", requester=ADMIN)
    assert authorize(CLAIM, pay, document, member(TREASURER), chart()).eligible == (TREASURER,)
    refused = refusal(
        lambda: authorize(
            CLAIM,
            pay,
            document,
            member(ADMIN, Role.ADMIN),
            chart(),
            task_transitions={"pay": Via.REASSIGNMENT},
        )
    )
    assert refused.code == "self_approval"


@pytest.mark.parametrize(
    "outsider", [CEO, HEAD, AUDITOR, LONER, None], ids=["ceo", "head", "auditor", "loner", "system"]
)
def test_someone_outside_the_winning_band_is_not_assigned(outsider):
    document = doc(PURCHASE, "submitted")
    assert authorize(PURCHASE, APPROVE_PURCHASE, document, member(LEAD), chart()).via == Via.GRANT
    refused = refusal(
        lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, member(outsider), chart())
    )
    assert refused.code == "not_assigned"


def test_a_large_amount_is_decided_by_the_higher_band_only():
    chart_ = chart()
    below = doc(PURCHASE, "submitted", amount=LARGE - Decimal("0.01"))
    at = doc(PURCHASE, "submitted", amount=LARGE)  # bands are half-open: 10000 is the head's
    small = authorize(PURCHASE, APPROVE_PURCHASE, below, member(LEAD), chart_)
    large = authorize(PURCHASE, APPROVE_PURCHASE, at, member(HEAD), chart_)
    assert (small.winning_floor, small.eligible) == (Decimal("0.00"), (LEAD,))
    assert (large.winning_floor, large.eligible) == (LARGE, (HEAD,))
    # Each band decides its own amounts, and no other.
    head_below = refusal(lambda: authorize(PURCHASE, APPROVE_PURCHASE, below, member(HEAD), chart_))
    lead_at = refusal(lambda: authorize(PURCHASE, APPROVE_PURCHASE, at, member(LEAD), chart_))
    assert (head_below.code, lead_at.code) == ("not_assigned", "not_assigned")


def test_an_amount_below_every_floor_has_no_band_to_decide_it():
    unit_head_only = replace(PURCHASE, grants=PURCHASE.grants[1:])
    approve = exit_of(unit_head_only, "submitted", "approve")
    at = doc(unit_head_only, "submitted", amount=LARGE)
    assert authorize(unit_head_only, approve, at, member(HEAD), chart()).winning_floor == LARGE
    below = doc(unit_head_only, "submitted", amount=LARGE - Decimal("0.01"))
    refused = refusal(lambda: authorize(unit_head_only, approve, below, member(HEAD), chart()))
    assert refused.code == "no_band_covers_amount"
    assert refused.params == {"amount": "9999.99"}


def test_a_higher_band_that_finds_nobody_is_not_decided_by_the_band_below():
    # A large request whose unit has lost its head: the superior's band (from 0) still
    # has someone, but the amount is the unit head's to decide, and nobody may decide it
    # in their place — just as routing refuses to plan this step.
    headless = people().headless(OPS, EXEC).snapshot()
    small = doc(PURCHASE, "submitted", amount=LARGE - Decimal("0.01"))
    assert authorize(PURCHASE, APPROVE_PURCHASE, small, member(LEAD), headless).eligible == (LEAD,)
    large = doc(PURCHASE, "submitted", amount=LARGE)
    refused = refusal(lambda: authorize(PURCHASE, APPROVE_PURCHASE, large, member(LEAD), headless))
    assert refused.code == "no_band_covers_amount"
    # A task escalated to someone still carries its own authority, recorded as such.
    escalated = authorize(
        PURCHASE,
        APPROVE_PURCHASE,
        large,
        member(CEO),
        headless,
        task_transitions={"approve": Via.ESCALATION},
    )
    assert (escalated.via, escalated.winning_floor, escalated.eligible) == (
        Via.ESCALATION,
        None,
        (),
    )


def test_an_escalated_task_lends_authority_outside_the_band_for_its_own_transitions():
    document = doc(PURCHASE, "submitted")
    refused = refusal(lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, member(CEO), chart()))
    assert refused.code == "not_assigned"
    authority = authorize(
        PURCHASE,
        APPROVE_PURCHASE,
        document,
        member(CEO),
        chart(),
        task_transitions={"approve": Via.ESCALATION},
    )
    assert authority.via == Via.ESCALATION
    assert authority.authority_member == CEO
    # The band is recorded as it stood: the CEO decided outside it, on the task's authority.
    assert (authority.gate_state, authority.winning_floor, authority.eligible) == (
        "approved",
        Decimal("0.00"),
        (LEAD,),
    )
    # The task names the transitions it authorises, and only those.
    refused = refusal(
        lambda: authorize(
            PURCHASE,
            REJECT_PURCHASE,
            document,
            member(CEO),
            chart(),
            task_transitions={"approve": Via.ESCALATION},
        )
    )
    assert refused.code == "not_assigned"


def test_a_member_of_the_band_decides_on_the_grant_even_holding_an_escalated_task():
    authority = authorize(
        PURCHASE,
        APPROVE_PURCHASE,
        doc(PURCHASE, "submitted"),
        member(LEAD),
        chart(),
        task_transitions={"approve": Via.ESCALATION},
    )
    assert authority.via == Via.GRANT


def test_a_rejection_is_authorised_like_its_target_gated_sibling():
    assert REJECT_PURCHASE.gate == Gate.ADVANCE
    for amount, decider, outsider in ((SMALL, LEAD, HEAD), (LARGE, HEAD, LEAD)):
        document = doc(PURCHASE, "submitted", amount=amount)
        approve = authorize(PURCHASE, APPROVE_PURCHASE, document, member(decider), chart())
        reject = authorize(PURCHASE, REJECT_PURCHASE, document, member(decider), chart())
        assert reject == approve
        assert reject.gate_state == "approved"
        refused = refusal(
            partial(authorize, PURCHASE, REJECT_PURCHASE, document, member(outsider), chart())
        )
        assert refused.code == "not_assigned"
    refused = refusal(
        lambda: authorize(
            PURCHASE, REJECT_PURCHASE, doc(PURCHASE, "submitted"), member(STAFF), chart()
        )
    )
    assert refused.code == "self_approval"


DISMISS = exit_of(CLAIM, "disputed", "dismiss")  # source gate: the admins hold "disputed"
UPHOLD = exit_of(CLAIM, "disputed", "uphold")


def test_whoever_raised_a_dispute_cannot_close_it_while_another_holder_may():
    assert DISMISS.gate == Gate.SOURCE
    document = doc(CLAIM, "disputed", dispute_raiser=ADMIN)
    for transition in (DISMISS, UPHOLD):
        authority = authorize(CLAIM, transition, document, member(TREASURER, Role.ADMIN), chart())
        assert (authority.via, authority.gate_state, authority.eligible) == (
            Via.GRANT,
            "disputed",
            (ADMIN, TREASURER),
        )
        refused = refusal(
            partial(authorize, CLAIM, transition, document, member(ADMIN, Role.ADMIN), chart())
        )
        assert refused.code == "dispute_raiser"


def test_the_raiser_may_close_a_dispute_someone_else_raised():
    # The same admin, now not the raiser: the refusal above was about raising it.
    document = doc(CLAIM, "disputed", dispute_raiser=TREASURER)
    assert authorize(CLAIM, DISMISS, document, member(ADMIN, Role.ADMIN), chart()).via == Via.GRANT


# --- what follows: the route, the tasks ------------------------------------------------------


def test_a_requester_with_someone_to_decide_every_step_may_submit():
    assert allowed(check_route, CLAIM, doc(CLAIM, "draft"), chart())
    assert allowed(check_route, PURCHASE, doc(PURCHASE, "draft", amount=LARGE), chart())


def test_a_requester_without_a_primary_seat_cannot_submit_and_is_told_where_and_why():
    assert allowed(check_route, CLAIM, doc(CLAIM, "draft"), chart())
    refused = refusal(lambda: check_route(CLAIM, doc(CLAIM, "draft", requester=LONER), chart()))
    assert refused.code == "route_has_gap"
    assert refused.params == {
        "state": "reviewed",
        "reason": GapReason.NO_PRIMARY_POSITION,
        "member_id": LONER,
    }


def test_a_gap_only_a_large_amount_reaches_stops_only_a_large_request():
    headless = people().headless(OPS, EXEC).snapshot()
    assert allowed(check_route, PURCHASE, doc(PURCHASE, "draft", amount=LARGE - 1), headless)
    refused = refusal(lambda: check_route(PURCHASE, doc(PURCHASE, "draft", amount=LARGE), headless))
    assert refused.code == "route_has_gap"
    assert refused.params == {"state": "approved", "reason": GapReason.NO_UNIT_HEAD, "unit_id": OPS}


def test_entering_a_step_plans_tasks_for_the_band_with_the_transitions_they_authorise():
    plans = plan_tasks(CLAIM, "pending_review", doc(CLAIM, "draft"), chart(), NOW)
    # The requester's own exit (withdraw) needs no task; review and reject share a gate.
    assert plans == [
        TaskPlan(
            state="pending_review",
            gate_state="reviewed",
            assignees=(LEAD,),
            transitions=("review", "reject"),
            band_floor=Decimal(0),
            due_at=NOW + timedelta(days=5),
        )
    ]


def test_a_task_is_due_when_the_states_deadline_says():
    small = plan_tasks(PURCHASE, "submitted", doc(PURCHASE, "draft"), chart(), NOW)
    large = plan_tasks(PURCHASE, "submitted", doc(PURCHASE, "draft", amount=LARGE), chart(), NOW)
    assert [(p.assignees, p.band_floor, p.due_at) for p in small] == [
        ((LEAD,), Decimal("0.00"), datetime(2026, 3, 4, 9, 30, tzinfo=UTC))
    ]
    assert [(p.assignees, p.band_floor, p.due_at) for p in large] == [
        ((HEAD,), LARGE, datetime(2026, 3, 4, 9, 30, tzinfo=UTC))
    ]
    assert [p.transitions for p in large] == [("approve", "reject")]


def test_a_state_without_a_deadline_plans_tasks_with_no_due_time():
    reviewed = CLAIM.state("reviewed")
    assert reviewed is not None and reviewed.deadline is None
    (plan,) = plan_tasks(CLAIM, "reviewed", doc(CLAIM, "pending_review"), chart(), NOW)
    assert (plan.gate_state, plan.assignees, plan.transitions, plan.due_at) == (
        "approved",
        (HEAD,),
        ("approve", "reject"),
        None,
    )


def test_the_requester_never_gets_a_task_on_their_own_document():
    # Without exclusive approval: with it, one admin left could not both commit and pay.
    claim = replace(CLAIM, exclusive_approval=False)
    by_treasurer = plan_tasks(
        claim, "category_verified", doc(claim, "approved", requester=TREASURER), chart(), NOW
    )
    assert [p.assignees for p in by_treasurer] == [(ADMIN,)]
    by_admin = plan_tasks(
        claim, "category_verified", doc(claim, "approved", requester=ADMIN), chart(), NOW
    )
    assert [(p.gate_state, p.assignees, p.transitions) for p in by_admin] == [
        ("completed", (TREASURER,), ("pay", "reject"))
    ]


def test_each_distinct_gate_state_among_the_exits_plans_its_own_tasks():
    # Submitted may be checked (or rejected) by the checkers, or sent back by the auditors
    # who hold "submitted" itself.
    graph = replace(
        two_steps(),
        transitions=(
            *two_steps().transitions,
            go("send_back", "submitted", "draft", Gate.SOURCE, order=3),
        ),
    )
    plans = plan_tasks(graph, "submitted", doc(graph, "draft"), with_lead().snapshot(), NOW)
    assert [(p.gate_state, p.assignees, p.transitions, p.due_at) for p in plans] == [
        ("checked", (LEAD, AUDITOR), ("check", "reject"), None),
        ("submitted", (AUDITOR,), ("send_back",), None),
    ]


def test_a_dispute_plans_tasks_for_the_holders_of_the_dispute_state():
    (plan,) = plan_tasks(CLAIM, "disputed", doc(CLAIM, "received"), chart(), NOW)
    assert (plan.gate_state, plan.assignees, plan.transitions) == (
        "disputed",
        (ADMIN, TREASURER),
        ("dismiss", "uphold"),
    )


@pytest.mark.parametrize("state", ["completed", "received", "rejected", "draft"])
def test_a_state_only_the_requester_leaves_plans_no_tasks(state):
    assert plan_tasks(CLAIM, "pending_review", doc(CLAIM, "draft"), chart(), NOW) != []
    assert all(t.gate == Gate.REQUESTER for t in CLAIM.transitions_from(state))
    assert plan_tasks(CLAIM, state, doc(CLAIM, "pending_review"), chart(), NOW) == []


def test_a_next_step_nobody_could_decide_refuses_the_transition_naming_the_gap():
    assert plan_tasks(CLAIM, "pending_review", doc(CLAIM, "draft"), chart(), NOW)
    refused = refusal(
        lambda: plan_tasks(
            CLAIM, "pending_review", doc(CLAIM, "draft", requester=LONER), chart(), NOW
        )
    )
    assert refused.code == "route_has_gap"
    assert refused.params == {
        "state": "reviewed",
        "reason": GapReason.NO_PRIMARY_POSITION,
        "member_id": LONER,
    }


def test_a_dispute_nobody_could_close_cannot_be_raised():
    assert plan_tasks(CLAIM, "disputed", doc(CLAIM, "received"), chart(), NOW)
    no_admins = with_lead().snapshot()
    refused = refusal(lambda: plan_tasks(CLAIM, "disputed", doc(CLAIM, "received"), no_admins, NOW))
    assert refused.code == "route_has_gap"
    assert refused.params == {
        "state": "disputed",
        "reason": GapReason.ROLE_EMPTY,
        "role": Role.ADMIN,
    }


def test_a_step_holding_only_the_requester_refuses_the_transition():
    graph = replace(PURCHASE, grants=(grant("approved", GranteeKind.MEMBER, member=HEAD),))
    assert plan_tasks(graph, "submitted", doc(graph, "draft"), chart(), NOW)
    refused = refusal(
        lambda: plan_tasks(graph, "submitted", doc(graph, "draft", requester=HEAD), chart(), NOW)
    )
    assert refused.code == "route_has_gap"
    assert refused.params == {
        "state": "approved",
        "reason": GapReason.ONLY_THE_REQUESTER,
        "member_id": HEAD,
    }


# --- postings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "key", "posting"),
    [
        ("approved", "verify_category", Posting.ACCRUAL),  # into category_verified
        ("category_verified", "pay", Posting.PAYOUT),  # into completed ("Paid")
        ("category_verified", "reject", Posting.REVERSAL),  # after the accrual
        ("disputed", "uphold", Posting.REVERSAL),  # after the payout
        ("pending_review", "reject", None),  # before the accrual: nothing to undo
        ("pending_review", "review", None),
        ("completed", "acknowledge", None),
        ("completed", "dispute", None),
        ("disputed", "dismiss", None),
        ("draft", "submit", None),
    ],
)
def test_only_entering_an_accrual_or_payout_state_or_reversing_one_posts(source, key, posting):
    assert posting_of(CLAIM, exit_of(CLAIM, source, key)) == posting


# --- the hash chain ------------------------------------------------------------------------------

RECORD: dict[str, Any] = {
    "document_id": 42,
    "seq": 3,
    "flow_version_id": 7,
    "from_state": "submitted",
    "to_state": "approved",
    "transition": "approve",
    "gate": "target",
    "actor_id": LEAD,
    "authority_member_id": LEAD,
    "via": "grant",
    "delegation_id": None,
    "amount": "480.0000",
    "currency": "MYR",
    "winning_floor": "0.0000",
    "eligible": [LEAD],
    "resolution": [{"grant": 0, "members": [LEAD], "gap": None}],
    "comment": "Fine.",
    "request_id": "req-1",
    "decided_at": "2026-03-02T09:30:00.000000+00:00",
    "prev_hash": GENESIS_HASH,
}
PREV = "ab" * 32


def test_a_decision_hashes_the_same_every_time():
    first = decision_hash(PREV, RECORD)
    assert first == decision_hash(PREV, dict(RECORD))
    assert len(first) == 64 and int(first, 16) >= 0


def test_the_order_of_the_keys_does_not_matter():
    reordered = {k: RECORD[k] for k in reversed(list(RECORD))}
    reordered["resolution"] = [{"gap": None, "members": [LEAD], "grant": 0}]
    assert list(reordered) != list(RECORD)
    assert decision_hash(PREV, reordered) == decision_hash(PREV, RECORD)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("amount", "480.0001"),
        ("actor_id", HEAD),
        ("via", "escalation"),
        ("eligible", [LEAD, HEAD]),
        ("resolution", [{"grant": 0, "members": [HEAD], "gap": None}]),
        ("comment", "Fine!"),
        ("comment", None),
        ("delegation_id", 0),
        ("decided_at", "2026-03-02T09:30:00.000001+00:00"),
        ("to_state", "rejected"),
    ],
)
def test_changing_any_recorded_value_changes_the_hash(key, value):
    assert decision_hash(PREV, RECORD) == decision_hash(PREV, dict(RECORD))
    assert decision_hash(PREV, {**RECORD, key: value}) != decision_hash(PREV, RECORD)


def test_adding_or_dropping_a_value_changes_the_hash():
    without = {k: v for k, v in RECORD.items() if k != "comment"}
    assert decision_hash(PREV, without) != decision_hash(PREV, RECORD)
    assert decision_hash(PREV, {**RECORD, "extra": None}) != decision_hash(PREV, RECORD)


def test_the_previous_hash_is_part_of_the_hash_so_a_change_breaks_every_hash_after_it():
    assert decision_hash(PREV, RECORD) != decision_hash(GENESIS_HASH, RECORD)
    second = {**RECORD, "seq": 4, "transition": "pay"}
    first_hash = decision_hash(GENESIS_HASH, RECORD)
    tampered_first = decision_hash(GENESIS_HASH, {**RECORD, "comment": "Fine, I guess."})
    assert decision_hash(first_hash, second) == decision_hash(first_hash, dict(second))
    assert decision_hash(tampered_first, second) != decision_hash(first_hash, second)


# --- decide: the whole pipeline as one pure decision --------------------------------------


def test_deciding_a_submission_plans_the_next_steps_tasks_and_no_posting():
    from portal.domain.engine import decide

    plan = decide(
        CLAIM,
        doc(CLAIM, "draft"),
        "submit",
        seen_state="draft",
        comment="",
        principal=member(STAFF),
        chart=chart(),
        now=NOW,
    )
    assert plan.transition.key == "submit"
    assert plan.authority.via == "requester"
    assert [(t.state, t.assignees, t.transitions) for t in plan.tasks] == [
        ("pending_review", (LEAD,), ("review", "reject"))
    ]
    assert (plan.posting, plan.dispute_raiser) == (None, None)


def test_deciding_refuses_in_the_pipelines_order():
    from portal.domain.engine import decide

    def attempt(**changes: Any) -> str:
        args: dict[str, Any] = {
            "seen_state": "pending_review",
            "comment": "",
            "principal": member(LEAD),
            "chart": chart(),
            "now": NOW,
        }
        args.update(changes)
        return refusal(lambda: decide(CLAIM, doc(CLAIM, "pending_review"), "reject", **args)).code

    # A stale page is told so before anything else; then the comment; then authority.
    assert attempt(seen_state="draft", principal=member(STAFF)) == "stale_state"
    assert attempt(principal=member(STAFF)) == "comment_required"
    assert attempt(comment="No receipt.", principal=member(STAFF)) == "self_approval"
    plan = decide(
        CLAIM,
        doc(CLAIM, "pending_review"),
        "reject",
        seen_state="pending_review",
        comment="No receipt.",
        principal=member(LEAD),
        chart=chart(),
        now=NOW,
    )
    assert (plan.transition.to_state, plan.authority.via, plan.tasks) == ("rejected", "grant", ())
