"""The flow graph model.

The story: defaults are filled in by name, labels fall back sensibly, and the questions
the engine asks of a graph (who gates this step, which grants apply, which steps need
routing) have exact answers.
"""

from __future__ import annotations

from dataclasses import replace

from portal.domain.graph import (
    Approval,
    CommentPolicy,
    Gate,
    Grant,
    Grantee,
    GranteeKind,
    OnVacancy,
    PostingOrder,
    StateRole,
)
from portal.domain.labels import Labels
from portal.flows import seeded
from tests.domain.test_validate import go, grant, plus, state, valid

BASE = "MYR"


def test_normalising_fills_each_default_by_name():
    g = plus(valid(), grants=[grant("approved", GranteeKind.UNIT_HEAD)]).normalised()
    assert g.posting_order == PostingOrder.ACCRUAL_FIRST
    assert {s.approval for s in g.states} == {Approval.ANY}
    assert g.transitions[0].comment == CommentPolicy.OPTIONAL
    assert g.transitions[4].comment == CommentPolicy.REQUIRED  # given, so kept
    assert {gr.on_vacancy for gr in g.grants} == {OnVacancy.ESCALATE}
    assert {gr.max_escalation_levels for gr in g.grants} == {2}
    assert g.grants[-1].grantee.walk_up is False
    assert g.grants[0].grantee.walk_up is None  # a superior has no walk_up at all


# --- labels ----------------------------------------------------------------------------


def test_a_label_falls_back_to_english_then_to_any_text():
    both = Labels({"en": "Approved", "zh": "已批准"})
    assert both.text("zh") == "已批准"
    assert both.text("ms") == "Approved"
    assert Labels({"en": "Approved", "ms": "   "}).text("ms") == "Approved"
    assert Labels({"zh": "已批准"}).text("ms") == "已批准"
    assert Labels().text("en") == ""


def test_a_state_or_transition_is_named_in_the_locale_and_an_unknown_key_by_itself():
    claim = seeded.seeded_graphs(BASE)[0]
    assert claim.state_label("pending_review", "zh") == "待审核"
    assert claim.state_label("pending_review", "en") == "Pending review"
    assert claim.transition_label("pending_review", "review", "zh") == "标记为已审核"
    # A key the graph does not have (a refusal may name any) is shown as it is.
    assert claim.state_label("gone", "zh") == "gone"
    assert claim.transition_label("draft", "review", "zh") == "review"  # not an exit of draft


def test_labels_are_an_immutable_hashable_mapping_equal_to_a_dict():
    labels = Labels({"en": "Draft", "zh": "草稿"})
    assert labels == {"en": "Draft", "zh": "草稿"}
    assert labels == Labels([("zh", "草稿"), ("en", "Draft")])
    assert hash(labels) == hash(Labels({"zh": "草稿", "en": "Draft"}))
    assert labels.get("ms") is None and "en" in labels and len(labels) == 2
    assert dict(labels.items()) == {"en": "Draft", "zh": "草稿"}


# --- the questions the engine asks ------------------------------------------------------


def test_the_gate_state_is_the_target_the_source_or_the_advance_sibling_target():
    g = valid()
    submit, approve, pay, _, reject_pending, reject_approved, _ = g.transitions
    assert g.gate_state(submit) is None  # the requester needs no grant
    assert g.gate_state(approve) == "approved"
    assert g.gate_state(pay) == "paid"
    assert g.gate_state(reject_pending) == "approved"  # authorised like "approve"
    assert g.gate_state(reject_approved) == "paid"
    assert g.gate_state(replace(pay, gate=Gate.SOURCE)) == "approved"


def test_an_advance_gate_with_no_or_several_forward_siblings_has_no_gate_state():
    g = valid()
    assert g.gate_state(g.transitions[4]) == "approved"
    two_ways = plus(g, transitions=[go("escalate", "pending", "paid", Gate.TARGET)])
    assert two_ways.gate_state(two_ways.transitions[4]) is None
    no_way = replace(g, transitions=tuple(t for t in g.transitions if t.key != "approve"))
    assert no_way.gate_state(no_way.transitions[3]) is None


def test_the_target_gated_exits_of_a_state_are_where_its_forward_steps_lead():
    g = valid()
    assert g.target_gated_exits("pending") == ("approved",)
    assert g.target_gated_exits("draft") == ()  # only the requester leaves a draft
    two_ways = plus(g, transitions=[go("escalate", "pending", "paid", Gate.TARGET)])
    assert two_ways.target_gated_exits("pending") == ("approved", "paid")


def test_grants_on_a_state_are_its_own_then_every_all_states_grant_in_drawing_order():
    everywhere = Grant(all_states=True, grantee=Grantee(GranteeKind.UNIT_HEAD))
    g = replace(valid(), grants=(everywhere, *valid().grants))
    assert g.grants_on("approved") == (everywhere, valid().grants[0])
    assert g.grants_on("paid") == (everywhere, valid().grants[1])
    assert g.grants_on("draft") == (everywhere,)
    assert valid().grants_on("draft") == ()


def test_the_grants_deciding_in_a_state_are_those_behind_its_gated_exits():
    g = valid()
    approved_grant, paid_grant = g.grants
    # "pending" is left by approve (target: approved) and reject (advance: like approve).
    assert g.deciding_grants("pending") == (approved_grant,)
    assert g.deciding_grants("approved") == (paid_grant,)
    # Only the requester leaves "draft" and "paid": nobody else decides there.
    assert g.deciding_grants("draft") == ()
    assert g.deciding_grants("paid") == ()


def test_approval_states_are_those_entered_through_a_target_gate_in_drawing_order():
    assert valid().approval_states() == ["approved", "paid"]
    reordered = replace(valid(), states=tuple(reversed(valid().states)))
    assert reordered.approval_states() == ["paid", "approved"]


def test_the_exits_of_a_state_come_in_display_order_and_ties_keep_drawing_order():
    g = plus(
        valid(),
        transitions=[
            go("withdraw", "pending", "done", Gate.REQUESTER, order=2),
            go("first", "pending", "done", Gate.REQUESTER, order=-1),
        ],
    )
    assert [t.key for t in g.transitions_from("pending")] == [
        "first",
        "approve",
        "reject",
        "withdraw",
    ]
    assert g.transitions_from("done") == []
    assert g.transition("pending", "reject") == g.transitions[4]
    assert g.transition("draft", "reject") is None


def test_the_initial_state_is_the_single_draft_state():
    assert valid().initial_state() == valid().states[0]
    two = replace(valid(), states=(*valid().states, state("again", StateRole.DRAFT)))
    assert two.initial_state() is None


def test_a_transition_moves_forward_unless_it_rejects_withdraws_or_disputes():
    claim = seeded.expense_claim("MYR")
    assert claim.moves_forward("reviewed") and claim.moves_forward("completed")
    assert not any(claim.moves_forward(k) for k in ("rejected", "cancelled", "disputed"))
    assert not claim.moves_forward("no_such_state")
