"""The flows every new organization starts with (DESIGN §9), checked without an app.

The story: each seeded flow passes its own validator in any base currency, speaks every
supported language, and has the shape the design promises. A seed that drifted from the
rules would be refused at publication, so the drift case at the end shows the validator
catching exactly such a change.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from itertools import pairwise

import pytest

from portal.domain.graph import (
    BreachAction,
    CommentPolicy,
    Gate,
    GranteeKind,
    Graph,
    PostingOrder,
    StateRole,
    Transition,
)
from portal.domain.labels import Labels
from portal.domain.locales import SUPPORTED_LOCALES
from portal.domain.validate import validate
from portal.flows import seeded

CURRENCIES = ["MYR", "USD"]


def seeded_cases() -> list[tuple[str, Graph]]:
    return [(c, g) for c in CURRENCIES for g in seeded.seeded_graphs(c)]


def exits(graph: Graph, source: str) -> dict[str, Transition]:
    return {t.key: t for t in graph.transitions_from(source)}


def between(graph: Graph, source: str, target: str) -> list[Transition]:
    return [t for t in graph.transitions if t.from_state == source and t.to_state == target]


def role_of(graph: Graph, key: str) -> str:
    state = graph.state(key)
    assert state is not None, key
    return state.role


# --- every seeded flow ---------------------------------------------------------------


def test_the_seeded_kinds_come_in_their_listed_order():
    assert [g.kind for g in seeded.seeded_graphs("MYR")] == list(seeded.SEEDED_KINDS)


@pytest.mark.parametrize(
    ("currency", "graph"), seeded_cases(), ids=lambda v: v if isinstance(v, str) else v.kind
)
def test_every_seeded_flow_passes_the_validator_without_even_a_warning(currency, graph):
    assert validate(graph, base_currency=currency) == []


@pytest.mark.parametrize(
    ("currency", "graph"), seeded_cases(), ids=lambda v: v if isinstance(v, str) else v.kind
)
def test_every_seeded_flow_is_already_normalised(currency, graph):
    # What is seeded is what is published: nothing left for normalising to fill in.
    assert graph.normalised() == graph


def _labelled(graph: Graph) -> list[tuple[str, Labels]]:
    found = [(graph.kind, graph.labels)]
    found += [(f"state {s.key}", s.labels) for s in graph.states]
    found += [(f"transition {t.from_state}.{t.key}", t.labels) for t in graph.transitions]
    found += [
        (f"guard on {t.from_state}.{t.key}", t.guard.message)
        for t in graph.transitions
        if t.guard is not None
    ]
    for f in graph.fields:
        found.append((f"field {f.key}", f.labels))
        found += [(f"choice {f.key}.{c.key}", c.labels) for c in f.choices]
    return found


@pytest.mark.parametrize("graph", seeded.seeded_graphs("MYR"), ids=lambda g: g.kind)
def test_every_seeded_label_speaks_english_chinese_and_malay(graph):
    for where, labels in _labelled(graph):
        assert set(labels) == set(SUPPORTED_LOCALES), where
        assert all(text.strip() for text in labels.values()), where


# --- expense claim ---------------------------------------------------------------------


def test_an_expense_claim_runs_from_draft_to_received_through_the_money_steps():
    g = seeded.expense_claim("MYR")
    path = ["draft", "pending_review", "reviewed", "approved", "category_verified"]
    path += ["completed", "received"]
    for source, target in pairwise(path):
        assert between(g, source, target), f"{source} -> {target}"
    assert g.posting_order == PostingOrder.ACCRUAL_FIRST
    assert role_of(g, "draft") == StateRole.DRAFT
    assert role_of(g, "category_verified") == StateRole.ACCRUAL
    assert role_of(g, "completed") == StateRole.PAYOUT
    completed = g.state("completed")
    assert completed is not None and completed.labels["en"] == "Paid"
    received = g.state("received")
    assert received is not None
    assert received.terminal and received.role == StateRole.ACKNOWLEDGED
    assert [s.key for s in g.states if s.role == StateRole.ACCRUAL] == ["category_verified"]
    assert [s.key for s in g.states if s.role == StateRole.PAYOUT] == ["completed"]


def test_an_expense_claim_rejection_needs_a_comment_and_reverses_once_booked():
    g = seeded.expense_claim("MYR")
    rejections = [t for t in g.transitions if t.to_state == "rejected" and t.key == "reject"]
    assert [t.from_state for t in rejections] == [
        "pending_review",
        "reviewed",
        "approved",
        "category_verified",
    ]
    for t in rejections:
        assert t.comment == CommentPolicy.REQUIRED
        assert t.gate == Gate.ADVANCE
        # Only the rejection after the accrual has anything to reverse.
        assert t.reverses == (t.from_state == "category_verified"), t.from_state
    assert between(g, "rejected", "draft")[0].gate == Gate.REQUESTER  # rework


def test_an_expense_claim_dispute_comes_after_payment_and_is_dismissed_or_upheld():
    g = seeded.expense_claim("MYR")
    assert role_of(g, "disputed") == StateRole.DISPUTE
    assert sorted(t.from_state for t in g.transitions if t.to_state == "disputed") == [
        "completed",
        "received",
    ]
    for t in g.transitions:
        if t.to_state == "disputed":
            assert t.comment == CommentPolicy.REQUIRED
    decisions = exits(g, "disputed")
    assert set(decisions) == {"dismiss", "uphold"}
    assert decisions["dismiss"].to_state == "received"
    assert decisions["uphold"].to_state == "rejected"
    assert decisions["uphold"].reverses
    assert all(t.gate == Gate.SOURCE for t in decisions.values())
    assert g.grants_on("disputed"), "somebody must decide a dispute"


def test_an_expense_claim_never_returns_from_paid_to_approved():
    g = seeded.expense_claim("MYR")
    assert between(g, "completed", "approved") == []
    assert between(g, "disputed", "completed") == []  # that would pay twice


def test_an_expense_claim_has_no_floors_so_its_currency_does_not_matter():
    assert seeded.expense_claim("MYR") == seeded.expense_claim("USD")
    assert all(g.min_amount is None for g in seeded.expense_claim("MYR").grants)


# --- purchase request ------------------------------------------------------------------


def test_a_purchase_request_needs_an_amount_above_zero_to_submit():
    g = seeded.purchase_request("MYR")
    submit = exits(g, "draft")["submit"]
    assert submit.guard is not None
    assert submit.guard.expression == "document.amount > 0"


def test_a_purchase_request_escalates_up_after_48_hours_without_a_decision():
    g = seeded.purchase_request("MYR")
    submitted = g.state("submitted")
    assert submitted is not None and submitted.deadline is not None
    assert (submitted.deadline.after, submitted.deadline.on_breach) == (
        "48h",
        BreachAction.ESCALATE_UP,
    )
    assert submitted.deadline.transition is None


@pytest.mark.parametrize("currency", CURRENCIES)
def test_a_purchase_requests_unit_head_floor_is_in_the_base_currency(currency):
    g = seeded.purchase_request(currency)
    floors = {gr.grantee.kind: (gr.min_amount, gr.currency) for gr in g.grants_on("approved")}
    assert floors == {
        GranteeKind.SUPERIOR: (Decimal("0.00"), currency),
        GranteeKind.UNIT_HEAD: (seeded.PURCHASE_UNIT_HEAD_FLOOR, currency),
    }
    # Validated against another base currency, every floor is refused.
    other = "EUR"
    assert {v.code for v in validate(g, base_currency=other)} == {"floor_currency_mismatch"}


def test_a_purchase_request_is_approved_rejected_or_withdrawn():
    g = seeded.purchase_request("MYR")
    decisions = exits(g, "submitted")
    assert {k: t.to_state for k, t in decisions.items()} == {
        "approve": "approved",
        "reject": "rejected",
        "withdraw": "cancelled",
    }
    assert decisions["reject"].comment == CommentPolicy.REQUIRED
    assert decisions["withdraw"].comment == CommentPolicy.REQUIRED


# --- leave request ---------------------------------------------------------------------


def test_a_leave_request_needs_a_comment_to_reject():
    g = seeded.leave_request("MYR")
    decisions = exits(g, "manager_review")
    assert decisions["approve"].to_state == "approved"
    assert decisions["reject"].to_state == "rejected"
    assert decisions["reject"].comment == CommentPolicy.REQUIRED
    assert decisions["approve"].comment == CommentPolicy.OPTIONAL


def test_a_leave_request_carries_no_money():
    g = seeded.leave_request("MYR")
    assert not {s.role for s in g.states} & {StateRole.ACCRUAL, StateRole.PAYOUT}
    assert seeded.leave_request("MYR") == seeded.leave_request("USD")


# --- drift -----------------------------------------------------------------------------


def test_a_seed_that_forgets_to_reverse_the_accrual_would_be_refused():
    g = seeded.expense_claim("MYR")
    assert validate(g, base_currency="MYR") == []

    i = next(
        i
        for i, t in enumerate(g.transitions)
        if t.from_state == "category_verified" and t.to_state == "rejected"
    )
    drifted = replace(
        g,
        transitions=(
            *g.transitions[:i],
            replace(g.transitions[i], reverses=False),
            *g.transitions[i + 1 :],
        ),
    )
    found = validate(drifted, base_currency="MYR")
    assert [(v.code, v.ref) for v in found] == [("reversal_missing", {"transition": i})]
