"""Exclusive approval (segregation of duties), pure: a member decides at most one
approval step of a document.

The story: what counts as having decided a step (a grant's forward decision, by the
actor or the member whose authority was relied on; never a rejection or the requester's
own action), for the whole life of the document (rework resets nothing); the engine
refuses a second step with ``exclusive_approval`` and opens no task for whoever is
spent, and refuses a decision that would leave a step with nobody; submitting checks
the steps can have distinct deciders; the route shows who is left and why; the
validator warns where the chart leaves a step empty; the setting travels in the JSON,
its digest and the publish diff. Each refusal comes after the allowed case.

The chart is ``test_engine``'s: CEO > HEAD (heads OPS) > LEAD > STAFF, admins ADMIN and
TREASURER. STAFF's claim: LEAD reviews, HEAD approves, an admin commits, another pays.
LEAD's claim: HEAD is both superior and unit head.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from portal.domain import graph_json
from portal.domain.engine import (
    Via,
    authorize,
    check_route,
    decide,
    plan_tasks,
)
from portal.domain.exclusive import (
    Exclusion,
    PriorDecision,
    staff,
    steps_decided,
)
from portal.domain.graph import Gate
from portal.domain.graph_diff import diff
from portal.domain.resolution import GapReason
from portal.domain.routing import route
from portal.domain.validate import validate
from portal.domain.validate.exclusive_staffing import (
    mentioned,
    unstaffed_steps,
    unstaffed_violations,
)
from tests.domain.test_engine import (
    ADMIN,
    CLAIM,
    NOW,
    TREASURER,
    chart,
    doc,
    exit_of,
    member,
    people,
    refusal,
)
from tests.domain.test_resolution import CEO, HEAD, LONER, STAFF
from tests.domain.test_routing import LEAD, LEAD_SEAT

PLAIN = replace(CLAIM, exclusive_approval=False)


def test_the_seeded_claim_has_exclusive_approval_and_the_other_flows_do_not():
    from portal.flows.seeded import leave_request, purchase_request

    assert CLAIM.exclusive_approval
    assert not purchase_request("MYR").exclusive_approval
    assert not leave_request("MYR").exclusive_approval


# --- what counts as having decided a step ----------------------------------------------


def _row(key: str, source: str, target: str, gate: str, actor: int | None, authority=None):
    return PriorDecision(key, source, target, gate, actor, authority if authority else actor)


def test_a_grants_forward_decisions_count_and_nothing_else_does():
    history = [
        _row("submit", "draft", "pending_review", Gate.REQUESTER, STAFF),
        _row("reject", "pending_review", "rejected", Gate.ADVANCE, LEAD),
        _row("revise", "rejected", "draft", Gate.REQUESTER, STAFF),
        _row("submit", "draft", "pending_review", Gate.REQUESTER, STAFF),
        _row("review", "pending_review", "reviewed", Gate.TARGET, LEAD),
        # A delegate acting on HEAD's authority: both have decided the approval.
        _row("approve", "reviewed", "approved", Gate.TARGET, LONER, HEAD),
        _row("verify_category", "approved", "category_verified", Gate.TARGET, ADMIN),
        # Neither a system move nor a dispute's handling is a step of the route.
        _row("pay", "category_verified", "completed", Gate.TARGET, None),
        _row("dismiss", "disputed", "received", Gate.SOURCE, TREASURER),
    ]
    assert steps_decided(CLAIM, history) == {
        LEAD: frozenset({"reviewed"}),
        LONER: frozenset({"approved"}),
        HEAD: frozenset({"approved"}),
        ADMIN: frozenset({"category_verified"}),
    }


def test_a_rejection_at_a_step_belongs_to_that_step_but_does_not_count():
    # HEAD sent the claim back from the approval step: nothing was committed.
    history = [_row("reject", "reviewed", "rejected", Gate.ADVANCE, HEAD)]
    assert steps_decided(CLAIM, history) == {}


# --- the engine: one step each ------------------------------------------------------------


def test_a_different_member_may_decide_the_next_step():
    document = doc(CLAIM, "category_verified", decided={ADMIN: frozenset({"category_verified"})})
    authority = authorize(
        CLAIM,
        exit_of(CLAIM, "category_verified", "pay"),
        document,
        member(TREASURER, "admin"),
        chart(),
    )
    assert (authority.via, authority.authority_member) == (Via.GRANT, TREASURER)
    # The decision records who could decide it: not whoever the rule refuses.
    assert authority.eligible == (TREASURER,)


def test_who_committed_the_money_may_not_also_pay_it():
    document = doc(CLAIM, "category_verified", decided={ADMIN: frozenset({"category_verified"})})
    pay = exit_of(CLAIM, "category_verified", "pay")
    assert authorize(CLAIM, pay, document, member(TREASURER, "admin"), chart())
    refused = refusal(lambda: authorize(CLAIM, pay, document, member(ADMIN, "admin"), chart()))
    assert (refused.code, refused.params) == ("exclusive_approval", {"step": "Category verified"})
    # Nor reject it at that step: the step is the gate's, whichever way it goes.
    reject = exit_of(CLAIM, "category_verified", "reject")
    assert refusal(
        lambda: authorize(CLAIM, reject, document, member(ADMIN, "admin"), chart(), locale="zh")
    ).params == {"step": "类别已核实"}


def test_a_task_of_their_own_does_not_let_a_spent_member_decide_another_step():
    # The CEO is outside the paying band; an escalated task lends him the authority.
    pay = exit_of(CLAIM, "category_verified", "pay")
    tasks = {"pay": Via.ESCALATION}
    fresh = doc(CLAIM, "category_verified", decided={ADMIN: frozenset({"category_verified"})})
    authority = authorize(CLAIM, pay, fresh, member(CEO), chart(), task_transitions=tasks)
    assert authority.via == Via.ESCALATION
    approved_it = replace(fresh, decided={**fresh.decided, CEO: frozenset({"approved"})})
    refused = refusal(
        lambda: authorize(CLAIM, pay, approved_it, member(CEO), chart(), task_transitions=tasks)
    )
    assert (refused.code, refused.params) == ("exclusive_approval", {"step": "Approved"})


def test_the_same_step_may_be_decided_again_after_rework_but_no_other():
    reviewed_once = doc(CLAIM, "pending_review", decided={LEAD: frozenset({"reviewed"})})
    review = exit_of(CLAIM, "pending_review", "review")
    assert authorize(CLAIM, review, reviewed_once, member(LEAD), chart()).via == Via.GRANT
    # LEAD is an admin too, in this chart's variant: still not the committer.
    admins = people().role("admin", LEAD).snapshot()
    approved = doc(CLAIM, "approved", decided={LEAD: frozenset({"reviewed"})})
    verify = exit_of(CLAIM, "approved", "verify_category")
    assert authorize(CLAIM, verify, approved, member(ADMIN, "admin"), admins)
    assert (
        refusal(lambda: authorize(CLAIM, verify, approved, member(LEAD, "admin"), admins)).code
        == "exclusive_approval"
    )


def test_without_the_setting_one_member_may_decide_every_step():
    document = doc(PLAIN, "category_verified", decided={ADMIN: frozenset({"category_verified"})})
    pay = exit_of(PLAIN, "category_verified", "pay")
    assert authorize(PLAIN, pay, document, member(ADMIN, "admin"), chart()).via == Via.GRANT


def test_whoever_commits_gets_no_task_to_pay():
    document = doc(
        CLAIM, "approved", decided={LEAD: frozenset({"reviewed"}), HEAD: frozenset({"approved"})}
    )
    plan = decide(
        CLAIM,
        document,
        "verify_category",
        seen_state="approved",
        comment="",
        principal=member(ADMIN, "admin"),
        chart=chart(),
        now=NOW,
    )
    assert [(t.gate_state, t.assignees) for t in plan.tasks] == [("completed", (TREASURER,))]
    without = decide(
        PLAIN,
        replace(document, decided={}),
        "verify_category",
        seen_state="approved",
        comment="",
        principal=member(ADMIN, "admin"),
        chart=chart(),
        now=NOW,
    )
    assert [t.assignees for t in without.tasks] == [(ADMIN, TREASURER)]


def test_a_step_left_with_nobody_refuses_the_decision_that_would_strand_the_document():
    # One admin only: whoever commits the money leaves nobody to pay it.
    lone = people().snapshot()
    lone = replace(lone, roles={"admin": (ADMIN,)})
    document = doc(
        CLAIM, "approved", decided={LEAD: frozenset({"reviewed"}), HEAD: frozenset({"approved"})}
    )
    refused = refusal(
        lambda: decide(
            CLAIM,
            document,
            "verify_category",
            seen_state="approved",
            comment="",
            principal=member(ADMIN, "admin"),
            chart=lone,
            now=NOW,
        )
    )
    assert (refused.code, refused.params) == (
        "route_has_gap",
        {"state": "completed", "reason": GapReason.EXCLUSIVE_APPROVAL},
    )


def test_a_step_ahead_left_with_nobody_refuses_now_and_its_only_decider_gets_no_task():
    # TREASURER is the only one who may pay, and may also commit: committing would strand
    # the payment, so the commit's tasks go to ADMIN alone.
    graph = replace(
        CLAIM,
        grants=tuple(
            replace(g, grantee=replace(g.grantee, kind="member", role=None, member=TREASURER))
            if g.state == "completed"
            else g
            for g in CLAIM.grants
        ),
    )
    approved = doc(
        graph, "approved", decided={LEAD: frozenset({"reviewed"}), HEAD: frozenset({"approved"})}
    )
    plans = plan_tasks(graph, "approved", approved, chart(), NOW)
    assert [(p.gate_state, p.assignees) for p in plans] == [("category_verified", (ADMIN,))]
    # Had TREASURER approved it, paying it would be nobody's: the approval is refused,
    # naming the step ahead it would strand.
    by_treasurer = replace(
        approved, decided={LEAD: frozenset({"reviewed"}), TREASURER: frozenset({"approved"})}
    )
    refused = refusal(lambda: plan_tasks(graph, "approved", by_treasurer, chart(), NOW))
    assert (refused.code, refused.params) == (
        "route_has_gap",
        {"state": "completed", "reason": GapReason.EXCLUSIVE_APPROVAL},
    )


# --- submitting: every step needs someone of its own ---------------------------------------


def test_a_requester_with_four_different_deciders_may_submit():
    check_route(CLAIM, doc(CLAIM, "draft"), chart())
    steps = route(CLAIM, STAFF, Decimal("480.00"), chart()).steps
    assert [(s.state, s.eligible) for s in steps] == [
        ("reviewed", (LEAD,)),
        ("approved", (HEAD,)),
        ("category_verified", (ADMIN, TREASURER)),
        ("completed", (ADMIN, TREASURER)),
    ]


def test_a_requester_whose_superior_heads_their_unit_cannot_submit_and_is_told_why():
    check_route(PLAIN, doc(PLAIN, "draft", requester=LEAD), chart())
    refused = refusal(lambda: check_route(CLAIM, doc(CLAIM, "draft", requester=LEAD), chart()))
    assert (refused.code, refused.params) == (
        "route_has_gap",
        {"state": "approved", "reason": GapReason.EXCLUSIVE_APPROVAL},
    )


def test_the_route_says_who_is_left_out_of_each_step_and_why():
    found = route(CLAIM, LEAD, Decimal("480.00"), chart())
    reviewed, approved = found.steps[0], found.steps[1]
    assert (reviewed.eligible, reviewed.routable) == ((HEAD,), True)
    assert approved.eligible == ()
    assert approved.excluded == (Exclusion(HEAD, "reviewed", decided=False),)
    assert [g.reason for g in approved.gaps] == [GapReason.EXCLUSIVE_APPROVAL]
    # Who already decided a step is left out of the others, and says so.
    after = route(
        CLAIM, STAFF, Decimal("480.00"), chart(), {ADMIN: frozenset({"category_verified"})}
    )
    assert after.steps[3].excluded == (Exclusion(ADMIN, "category_verified", decided=True),)
    assert after.steps[3].eligible == (TREASURER,)


# --- the staffing itself --------------------------------------------------------------------


A, B, C = 1, 2, 3


@pytest.mark.parametrize(
    ("steps", "stranded"),
    [
        ([("one", (A, B)), ("two", (A, B))], []),
        ([("one", (A,)), ("two", (A, B))], []),
        ([("one", (A, B)), ("two", (A,))], []),
        ([("one", (A,)), ("two", (A,))], ["two"]),
        # No step has a single decider, yet three steps cannot share two people.
        ([("one", (A, B)), ("two", (A, B)), ("three", (A, B))], ["three"]),
        ([("one", (A, B)), ("two", (A, B)), ("three", (A, B, C))], []),
    ],
)
def test_steps_are_stranded_only_when_they_cannot_have_distinct_deciders(steps, stranded):
    assert [s.state for s in staff(steps, {}) if s.stranded] == stranded


def test_the_only_decider_of_one_step_is_left_out_of_the_others():
    one, two = staff([("one", (A, B)), ("two", (A,))], {})
    assert (one.left, one.excluded) == ((B,), (Exclusion(A, "two", decided=False),))
    assert (two.left, two.excluded) == ((A,), ())


def test_a_step_already_decided_stays_with_its_decider_even_when_the_chart_moved_on():
    # A decided "one" and has since left its band; "two" still has A's colleague B.
    one, two = staff([("one", (B,)), ("two", (A, B))], {A: frozenset({"one"})})
    assert (two.left, two.stranded) == ((B,), False)
    assert two.excluded == (Exclusion(A, "one", decided=True),)
    # Were the document reworked, "one" would need B, whom "two" cannot spare: it says so
    # (the engine asks only when the document enters "one" again).
    assert one.stranded


# --- the validator, against the chart -------------------------------------------------------


def test_the_validator_warns_where_the_chart_leaves_a_step_empty():
    assert unstaffed_steps(PLAIN, chart()) == []
    [found] = unstaffed_steps(CLAIM, chart())
    # HEAD's own claim goes to the CEO twice, and so does LEAD's to HEAD.
    assert (found.state, found.requesters) == ("approved", (HEAD, LEAD))
    assert (found.deciders, found.competing) == ((CEO,), ("reviewed",))
    names = {HEAD: "Hassan", CEO: "Chen"}
    assert mentioned([found]) == {HEAD, CEO}
    [warning] = unstaffed_violations([found], CLAIM, names)
    assert (warning.code, warning.severity, warning.rule) == (
        "exclusive_approval_unstaffed",
        "warning",
        8,
    )
    assert dict(warning.ref) == {"state": "approved"}
    assert dict(warning.params) == {
        "state": "approved",
        "num": 2,
        "requester": "Hassan",
        "deciders": "Chen",
        "other": "reviewed",
    }


def test_the_warning_and_the_refusals_have_messages_their_parameters_fill():
    from portal.domain.messages import MESSAGES

    [found] = unstaffed_steps(CLAIM, chart())
    [warning] = unstaffed_violations([found], CLAIM, {})
    forms = MESSAGES["exclusive_approval_unstaffed"]
    assert isinstance(forms, tuple)
    singular, plural = forms
    for template in (singular, plural):
        assert "%(" not in template % dict(warning.params)
    assert "#1002" in plural % dict(warning.params)  # a name it lacks is the member's number
    assert "%(" not in str(MESSAGES["exclusive_approval"]) % {"step": "Reviewed"}
    assert "%(" not in str(MESSAGES["gap_exclusive_approval"])


def test_a_chart_with_a_separate_reviewer_for_everyone_draws_no_warning():
    # Only requesters whose superior is not also their unit head: STAFF, and the unseated
    # admins (whose route stops for want of a seat, which is not this rule's to say).
    sound = replace(chart(), active_members=frozenset({STAFF, ADMIN, TREASURER}))
    assert unstaffed_steps(CLAIM, sound) == []


def test_the_validator_finds_what_routing_each_requester_would():
    # ADMIN now shares LEAD's seat: a requester the admin grants name, which the
    # validator's shortcut (one stand-in per place on the chart) must not reuse.
    snapshot = people().sit(ADMIN, LEAD_SEAT).snapshot()
    one_by_one: dict[str, list[int]] = {}
    for requester in sorted(snapshot.active_members):
        if not route(PLAIN, requester, Decimal(0), snapshot).routable:
            continue
        for step in route(CLAIM, requester, Decimal(0), snapshot).steps:
            if any(g.reason == GapReason.EXCLUSIVE_APPROVAL for g in step.gaps):
                one_by_one.setdefault(step.state, []).append(requester)
    # ADMIN's own claim also leaves TREASURER alone to commit and to pay.
    assert one_by_one == {"approved": [HEAD, LEAD, ADMIN], "completed": [ADMIN]}
    found = unstaffed_steps(CLAIM, snapshot)
    assert {f.state: list(f.requesters) for f in found} == one_by_one


def test_the_seeded_claim_passes_the_pure_validator():
    assert validate(CLAIM, base_currency="MYR") == []


# --- the setting in JSON, its digest and the publish diff -----------------------------------


def test_the_setting_round_trips_and_changes_the_digest_only_when_on():
    assert graph_json.from_json(graph_json.to_json(CLAIM)) == CLAIM
    assert graph_json.to_json(CLAIM)["exclusive_approval"] is True
    assert "exclusive_approval" not in graph_json.to_json(PLAIN)
    # A graph saved before the setting existed keeps its fingerprint.
    without = graph_json.to_json(PLAIN)
    assert graph_json.digest_of(graph_json.from_json(without)) == graph_json.digest_of(PLAIN)
    explicit = {**without, "exclusive_approval": False}
    assert graph_json.digest_of(graph_json.from_json(explicit)) == graph_json.digest_of(PLAIN)
    assert graph_json.digest_of(CLAIM) != graph_json.digest_of(PLAIN)


@pytest.mark.parametrize("value", ["true", 1, [], {}])
def test_a_setting_that_is_not_a_boolean_is_refused_by_path(value):
    data = {**graph_json.to_json(CLAIM), "exclusive_approval": value}
    with pytest.raises(graph_json.GraphFormatError) as refused:
        graph_json.from_json(data)
    assert refused.value.path == "exclusive_approval"


def test_turning_the_setting_on_or_off_is_a_change_to_publish():
    assert diff(PLAIN, PLAIN).exclusive_approval is None
    assert not diff(PLAIN, PLAIN).any
    assert diff(PLAIN, CLAIM).exclusive_approval is True
    assert diff(PLAIN, CLAIM).any and not diff(PLAIN, CLAIM).flow_changed
    assert diff(CLAIM, PLAIN).exclusive_approval is False
    assert diff(None, CLAIM).exclusive_approval is True
    assert diff(None, PLAIN).exclusive_approval is None


def test_a_target_gated_way_into_a_rejected_state_is_no_step():
    """Only steps that move a document on are given distinct deciders: a flow that
    gates a rejection by the grants of the rejected state gains no step by it."""
    assert CLAIM.exclusive_steps() == [s for s in CLAIM.approval_states() if CLAIM.moves_forward(s)]
    assert len(CLAIM.exclusive_steps()) == 4  # reviewed, approved, committed, paid

    reject = next(t for t in CLAIM.transitions if not CLAIM.moves_forward(t.to_state))
    gated = replace(
        CLAIM,
        transitions=type(CLAIM.transitions)(
            replace(t, gate=Gate.TARGET) if t is reject else t for t in CLAIM.transitions
        ),
    )
    assert reject.to_state in gated.approval_states()
    assert reject.to_state not in gated.exclusive_steps()
    assert gated.exclusive_steps() == CLAIM.exclusive_steps()
