"""The publish-time validator, one story per rule and one case per code.

Every refusal starts from the same small, valid expense flow and breaks exactly one thing
in a copy. The fixture is checked to be valid first, so a refusal can only come from the
break: an absent code means the rule held, not that the graph was broken elsewhere.

    draft -> pending -> approved (accrual) -> paid (payout) -> done (acknowledged, terminal)
    pending  -- reject (advance, comment) --> rejected
    approved -- reject (advance, comment, reverses) --> rejected
    rejected -- revise (requester) --> draft
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from portal.domain.actor import Role
from portal.domain.graph import (
    MAX_CHOICES,
    MAX_FIELDS,
    MAX_GRANTS,
    MAX_STATES,
    MAX_TRANSITIONS,
    BreachAction,
    Choice,
    CommentPolicy,
    Deadline,
    DocumentField,
    FieldType,
    Gate,
    Grant,
    Grantee,
    GranteeKind,
    Graph,
    PostingOrder,
    State,
    StateRole,
    Transition,
    TransitionGuard,
)
from portal.domain.labels import Labels
from portal.domain.messages import MESSAGES
from portal.domain.validate import (
    CODES,
    ERROR,
    WARNING,
    Violation,
    errors_in,
    floor_precision,
    grantee_violations,
    validate,
)

BASE = "MYR"

# --- the fixture ---------------------------------------------------------------------


def label(text: str) -> Labels:
    return Labels({"en": text})


def state(key: str, role: str, *, terminal: bool = False, **kw: Any) -> State:
    return State(key=key, labels=label(key.capitalize()), role=role, terminal=terminal, **kw)


def go(key: str, source: str, target: str, gate: str, **kw: Any) -> Transition:
    return Transition(
        key=key, from_state=source, to_state=target, gate=gate, labels=label(key), **kw
    )


def rejecting(source: str, *, reverses: bool = False) -> Transition:
    return go(
        "reject",
        source,
        "rejected",
        Gate.ADVANCE,
        comment=CommentPolicy.REQUIRED,
        reverses=reverses,
        order=2,
    )


def grant(state_key: str | None, kind: str = GranteeKind.SUPERIOR, **kw: Any) -> Grant:
    grantee = {k: kw.pop(k) for k in ("member", "position", "levels", "role", "walk_up") if k in kw}
    return Grant(state=state_key, grantee=Grantee(kind=kind, **grantee), **kw)


def valid() -> Graph:
    """draft -> pending -> approved(accrual) -> paid(payout) -> done, with rejections."""
    return Graph(
        kind="expense_claim",
        labels=label("Expense claim"),
        posting_order=PostingOrder.ACCRUAL_FIRST,
        fields=(
            DocumentField(
                key="category",
                type=FieldType.CHOICE,
                labels=label("Category"),
                required=True,
                choices=(Choice("travel", label("Travel")), Choice("meals", label("Meals"))),
            ),
            DocumentField(key="nights", type=FieldType.NUMBER, labels=label("Nights")),
        ),
        states=(
            state("draft", StateRole.DRAFT),  # 0
            state("pending", StateRole.PENDING),  # 1
            state("approved", StateRole.ACCRUAL),  # 2
            state("paid", StateRole.PAYOUT),  # 3
            state("done", StateRole.ACKNOWLEDGED, terminal=True),  # 4
            state("rejected", StateRole.REJECTED),  # 5
        ),
        transitions=(
            go(
                "submit",
                "draft",
                "pending",
                Gate.REQUESTER,
                guard=TransitionGuard("document.amount > 0", label("Enter an amount.")),
            ),  # 0
            go("approve", "pending", "approved", Gate.TARGET),  # 1
            go("pay", "approved", "paid", Gate.TARGET),  # 2
            go("acknowledge", "paid", "done", Gate.REQUESTER),  # 3
            rejecting("pending"),  # 4
            rejecting("approved", reverses=True),  # 5
            go("revise", "rejected", "draft", Gate.REQUESTER),  # 6
        ),
        grants=(
            grant("approved"),  # 0
            grant("paid", GranteeKind.ROLE, role=Role.ADMIN),  # 1
        ),
    )


# --- editing a copy ------------------------------------------------------------------


def _at(items: tuple[Any, ...], i: int, changes: dict[str, Any]) -> tuple[Any, ...]:
    return (*items[:i], replace(items[i], **changes), *items[i + 1 :])


def with_state(g: Graph, i: int, **changes: Any) -> Graph:
    return replace(g, states=_at(g.states, i, changes))


def with_transition(g: Graph, i: int, **changes: Any) -> Graph:
    return replace(g, transitions=_at(g.transitions, i, changes))


def with_grant(g: Graph, i: int, **changes: Any) -> Graph:
    return replace(g, grants=_at(g.grants, i, changes))


def with_grantee(g: Graph, i: int, **changes: Any) -> Graph:
    return with_grant(g, i, grantee=replace(g.grants[i].grantee, **changes))


def with_field(g: Graph, i: int, **changes: Any) -> Graph:
    return replace(g, fields=_at(g.fields, i, changes))


def with_choice(g: Graph, field: int, i: int, **changes: Any) -> Graph:
    return with_field(g, field, choices=_at(g.fields[field].choices, i, changes))


def plus(g: Graph, *, states=(), transitions=(), grants=()) -> Graph:
    return replace(
        g,
        states=(*g.states, *states),
        transitions=(*g.transitions, *transitions),
        grants=(*g.grants, *grants),
    )


def run(g: Graph) -> list[Violation]:
    return validate(g, base_currency=BASE)


def codes(violations: list[Violation]) -> list[str]:
    return [v.code for v in violations]


def assert_only(graph: Graph, code: str) -> list[Violation]:
    """``code`` is reported for ``graph``, and nothing from another rule comes with it."""
    assert run(valid()) == [], "the fixture must be valid, or every absence below is vacuous"
    found = run(graph)
    assert code in codes(found), found
    rule, severity = CODES[code]
    if severity == ERROR:
        assert {v.rule for v in errors_in(found)} == {rule}, found
    else:
        assert errors_in(found) == [], found
    return found


# --- one break per code --------------------------------------------------------------


def _two_drafts(g: Graph) -> Graph:
    return with_state(g, 1, role=StateRole.DRAFT)


BREAKS: dict[str, Callable[[Graph], Graph]] = {
    # rule 0 — well-formed
    "too_large": lambda g: plus(
        g, states=[state(f"extra_{i}", StateRole.CUSTOM) for i in range(MAX_STATES)]
    ),
    "flow_kind_invalid": lambda g: replace(g, kind="Expense Claim"),
    "posting_order_unknown": lambda g: replace(g, posting_order="sideways"),
    "label_en_missing": lambda g: with_state(g, 0, labels=Labels({"zh": "草稿"})),
    "label_locale_unsupported": lambda g: with_state(
        g, 0, labels=Labels({"en": "Draft", "fr": "Brouillon"})
    ),
    "label_too_long": lambda g: with_transition(g, 1, labels=label("A" * 201)),
    "field_key_invalid": lambda g: with_field(g, 1, key="Nights"),
    "field_key_duplicate": lambda g: with_field(g, 1, key="category"),
    "field_type_unknown": lambda g: with_field(g, 1, type="colour"),
    "field_choices_missing": lambda g: with_field(g, 0, choices=()),
    "field_choices_unexpected": lambda g: with_field(g, 1, choices=(Choice("one", label("One")),)),
    "choice_key_invalid": lambda g: with_choice(g, 0, 1, key="Meals"),
    "choice_key_duplicate": lambda g: with_choice(g, 0, 1, key="travel"),
    "state_key_invalid": lambda g: plus(g, states=[state("Orphan", StateRole.CUSTOM)]),
    "state_key_duplicate": lambda g: plus(
        g, states=[state("done", StateRole.CUSTOM, terminal=True)]
    ),
    "state_role_unknown": lambda g: with_state(g, 1, role="boss"),
    "approval_unsupported": lambda g: with_state(g, 1, approval="all"),
    "escalate_after_invalid": lambda g: with_state(g, 1, escalate_after="2w"),
    "deadline_after_invalid": lambda g: with_state(
        g, 1, deadline=Deadline(after="0m", on_breach=BreachAction.REMIND)
    ),
    "deadline_action_unknown": lambda g: with_state(
        g, 1, deadline=Deadline(after="48h", on_breach="panic")
    ),
    "deadline_transition_unknown": lambda g: with_state(
        g, 1, deadline=Deadline(after="48h", on_breach=BreachAction.AUTO, transition="pay")
    ),
    "deadline_transition_unexpected": lambda g: with_state(
        g, 1, deadline=Deadline(after="48h", on_breach=BreachAction.REMIND, transition="reject")
    ),
    "transition_key_invalid": lambda g: with_transition(g, 1, key="Approve"),
    "transition_state_unknown": lambda g: with_transition(g, 1, to_state="nowhere"),
    "transition_self_loop": lambda g: with_transition(g, 6, to_state="rejected"),
    "transition_duplicate": lambda g: plus(g, transitions=[g.transitions[0]]),
    "gate_unknown": lambda g: with_transition(g, 1, gate="anyone"),
    "comment_policy_unknown": lambda g: with_transition(g, 4, comment="maybe"),
    "grant_scope_invalid": lambda g: with_grant(g, 0, all_states=True),
    "grant_state_unknown": lambda g: with_grant(g, 0, state="nowhere"),
    "grantee_kind_unknown": lambda g: with_grantee(g, 0, kind="boss"),
    # A grant just added in the editor: nobody chosen, then a kind without its choice.
    "grantee_kind_missing": lambda g: with_grant(g, 0, grantee=Grantee(kind="")),
    "grantee_member_missing": lambda g: with_grant(g, 0, grantee=Grantee(GranteeKind.MEMBER)),
    "grantee_position_missing": lambda g: with_grant(g, 0, grantee=Grantee(GranteeKind.POSITION)),
    "grantee_levels_missing": lambda g: with_grant(g, 0, grantee=Grantee(GranteeKind.LEVELS_UP)),
    "grantee_role_missing": lambda g: with_grant(g, 0, grantee=Grantee(GranteeKind.ROLE)),
    "grantee_ref_invalid": lambda g: with_grantee(g, 0, member=7),
    "levels_up_invalid": lambda g: with_grantee(g, 0, kind=GranteeKind.LEVELS_UP, levels=0),
    "grantee_role_unknown": lambda g: with_grantee(g, 1, role="janitor"),
    "floor_negative": lambda g: with_grant(g, 0, min_amount=Decimal("-1"), currency=BASE),
    "floor_currency_mismatch": lambda g: with_grant(g, 0, min_amount=Decimal(0), currency="USD"),
    "floor_currency_without_amount": lambda g: with_grant(g, 0, currency=BASE),
    "floor_currency_missing": lambda g: with_grant(g, 0, min_amount=Decimal(0), currency=None),
    "on_vacancy_unknown": lambda g: with_grant(g, 0, on_vacancy="wait"),
    "escalation_bound_invalid": lambda g: with_grant(g, 0, max_escalation_levels=0),
    # rule 1
    "initial_state_count": _two_drafts,
    "no_terminal_state": lambda g: with_state(g, 4, terminal=False),
    # rule 2
    "state_unreachable": lambda g: plus(
        g, states=[state("orphan", StateRole.CUSTOM, terminal=True)]
    ),
    "state_no_exit": lambda g: replace(g, transitions=g.transitions[:6]),  # drop revise
    "terminal_exit_not_dispute": lambda g: plus(
        g,
        states=[state("archived", StateRole.CUSTOM, terminal=True)],
        transitions=[go("archive", "done", "archived", Gate.REQUESTER)],
    ),
    # rule 3
    "accrual_on_cycle": lambda g: plus(
        g,
        states=[state("on_hold", StateRole.CUSTOM)],
        transitions=[
            go("hold", "approved", "on_hold", Gate.REQUESTER),
            go("resume", "on_hold", "approved", Gate.REQUESTER),
        ],
    ),
    "payout_on_cycle": lambda g: plus(
        g,
        states=[state("query", StateRole.CUSTOM)],
        transitions=[
            go("query", "paid", "query", Gate.REQUESTER),
            go("answer", "query", "paid", Gate.REQUESTER),
        ],
    ),
    "accrual_repeated": lambda g: with_state(g, 4, role=StateRole.ACCRUAL),
    "payout_repeated": lambda g: with_state(g, 4, role=StateRole.PAYOUT),
    "payout_before_accrual": lambda g: with_state(
        with_state(g, 2, role=StateRole.PAYOUT), 3, role=StateRole.ACCRUAL
    ),
    "accrual_before_payout": lambda g: replace(g, posting_order=PostingOrder.PAYOUT_FIRST),
    "payout_without_accrual": lambda g: plus(
        replace(
            with_state(with_state(g, 2, role=StateRole.PAYOUT), 3, role=StateRole.ACCRUAL),
            posting_order=PostingOrder.PAYOUT_FIRST,
        ),
        transitions=[go("skip", "approved", "done", Gate.REQUESTER)],
    ),
    # rule 4
    "gate_without_grant": lambda g: replace(g, grants=g.grants[:1]),
    # rule 5
    "reversal_missing": lambda g: with_transition(g, 5, reverses=False),
    "reverses_unexpected": lambda g: with_transition(g, 0, reverses=True),
    # rule 6: a second way forward from pending makes "reject" ambiguous
    "advance_sibling_count": lambda g: plus(
        g,
        states=[state("side", StateRole.PENDING)],
        transitions=[
            go("escalate", "pending", "side", Gate.TARGET),
            go("approve", "side", "approved", Gate.TARGET),
        ],
        grants=[grant("side")],
    ),
    # rule 7
    "bands_do_not_reach_zero": lambda g: with_grant(
        g, 0, min_amount=Decimal("5000"), currency=BASE
    ),
    # rule 8
    "comment_not_required": lambda g: with_transition(g, 4, comment=None),
    "auto_transition_posts": lambda g: with_state(
        g, 1, deadline=Deadline(after="48h", on_breach=BreachAction.AUTO, transition="approve")
    ),
    "grant_unused": lambda g: plus(g, grants=[grant("pending")]),
    "grant_duplicate": lambda g: plus(g, grants=[g.grants[0]]),
    "deadline_without_tasks": lambda g: with_state(
        g, 5, deadline=Deadline(after="3d", on_breach=BreachAction.REMIND)
    ),
}

# Database-aware: only ``grantee_violations`` reports them (tested below).
TESTED_ELSEWHERE = {
    "grantee_member_unknown",
    "grantee_position_unknown",
    "floor_too_precise",
    "exclusive_approval_unstaffed",  # against the org chart: tests/domain/test_exclusive.py
}


def test_a_floor_more_precise_than_the_currency_is_refused_never_rounded():
    g = valid()
    exact = with_grant(g, 0, min_amount=Decimal("1000.50"), currency=BASE)
    assert floor_precision(exact, 2) == []
    assert floor_precision(with_grant(g, 0, min_amount=Decimal("1000"), currency=BASE), 0) == []
    # Trailing zeros say nothing finer: 1000.5000 is 1000.50.
    long = with_grant(g, 0, min_amount=Decimal("1000.5000"), currency=BASE)
    assert floor_precision(long, 2) == []
    (found,) = floor_precision(with_grant(g, 0, min_amount=Decimal("1000.005"), currency=BASE), 2)
    assert (found.code, found.path, found.ref) == (
        "floor_too_precise",
        "grants[0].min_amount",
        {"grant": 0},
    )
    assert found.params == {"amount": "1000.005", "places": 2}
    # Yen have no decimals: 1000.5 is refused where 1000.50 ringgit is not.
    yen = with_grant(g, 0, min_amount=Decimal("1000.5"), currency=BASE)
    assert [v.code for v in floor_precision(yen, 0)] == ["floor_too_precise"]


def test_every_code_the_validator_knows_has_a_case_here():
    assert set(BREAKS) | TESTED_ELSEWHERE == set(CODES)
    assert not set(BREAKS) & TESTED_ELSEWHERE


def test_the_fixture_is_valid_without_even_a_warning():
    assert run(valid()) == []


@pytest.mark.parametrize("code", sorted(BREAKS))
def test_breaking_one_thing_reports_its_code_and_nothing_from_another_rule(code):
    found = assert_only(BREAKS[code](valid()), code)
    rule, severity = CODES[code]
    for v in found:
        if v.code == code:
            assert (v.rule, v.severity) == (rule, severity)


@pytest.mark.parametrize("code", sorted(BREAKS))
def test_each_message_can_be_filled_from_its_violations_parameters(code):
    for v in run(BREAKS[code](valid())):
        message = MESSAGES[v.code]
        assert isinstance(message, str)
        assert "%(" not in message % dict(v.params)


def test_every_code_has_a_message():
    assert set(CODES) <= set(MESSAGES)


# --- rule 0 first ----------------------------------------------------------------------


def test_a_rule_zero_error_stops_the_graph_rules():
    orphaned = plus(valid(), states=[state("orphan", StateRole.CUSTOM)])
    assert codes(run(orphaned)) == ["state_unreachable", "state_no_exit"]

    both = replace(orphaned, kind="Expense Claim")
    assert codes(run(both)) == ["flow_kind_invalid"]


def test_a_rule_one_error_stops_rules_two_and_up():
    orphaned = plus(valid(), states=[state("orphan", StateRole.CUSTOM)])
    assert "state_unreachable" in codes(run(orphaned))

    assert codes(run(_two_drafts(orphaned))) == ["initial_state_count"]


def test_rule_zero_reports_every_error_it_finds_not_only_the_first():
    broken = replace(with_transition(valid(), 1, gate="anyone"), kind="Expense Claim")
    assert codes(run(broken)) == ["flow_kind_invalid", "gate_unknown"]


def test_a_guard_that_does_not_parse_is_a_rule_zero_error_with_its_column():
    assert run(valid()) == []
    broken = with_transition(
        valid(), 0, guard=TransitionGuard("document.amount >", label("Enter an amount."))
    )
    [v] = run(broken)
    assert (v.rule, v.code, v.severity) == (0, "guard_unexpected_end", ERROR)
    assert v.ref == {"transition": 0}
    assert v.path == "transitions[0].guard.expression"
    assert v.params["column"] == len("document.amount >") + 1


def test_a_guard_may_read_a_declared_field_but_not_an_undeclared_one():
    declared = with_transition(
        valid(),
        0,
        guard=TransitionGuard("document.fields.category == 'travel'", label("Travel only.")),
    )
    assert run(declared) == []

    undeclared = with_transition(
        valid(),
        0,
        guard=TransitionGuard("document.fields.colour == 'red'", label("Red only.")),
    )
    [v] = run(undeclared)
    assert (v.rule, v.code, v.path) == (0, "guard_unknown_path", "transitions[0].guard.expression")
    assert v.params == {"path": "document.fields.colour", "column": 1}


def test_a_guard_refusal_message_needs_an_english_text_too():
    silent = with_transition(
        valid(), 0, guard=TransitionGuard("document.amount > 0", Labels({"ms": "Amaun"}))
    )
    [v] = run(silent)
    assert (v.code, v.path) == ("label_en_missing", "transitions[0].guard.message.labels")


def test_a_value_given_but_empty_is_reported_not_replaced_by_the_default():
    # Only a value left out (None) takes the default.
    assert run(with_transition(valid(), 1, comment=None)) == []
    assert codes(run(with_transition(valid(), 1, comment=""))) == ["comment_policy_unknown"]
    assert codes(run(replace(valid(), posting_order=None))) == []
    assert codes(run(replace(valid(), posting_order=""))) == ["posting_order_unknown"]
    assert codes(run(with_state(valid(), 1, approval=""))) == ["approval_unsupported"]
    assert codes(run(with_grant(valid(), 0, on_vacancy=""))) == ["on_vacancy_unknown"]
    assert codes(run(with_grant(valid(), 0, on_vacancy="", max_escalation_levels=2))) == [
        "on_vacancy_unknown"
    ]


def sized(g: Graph, what: str, n: int) -> Graph:
    """The fixture grown to exactly ``n`` states, transitions, grants, fields or choices."""
    if what == "states":
        extra = n - len(g.states)
        return plus(g, states=[state(f"s{i}", StateRole.CUSTOM) for i in range(extra)])
    if what == "transitions":
        extra = n - len(g.transitions)
        return plus(
            g, transitions=[go(f"t{i}", "pending", "done", Gate.REQUESTER) for i in range(extra)]
        )
    if what == "grants":
        return plus(g, grants=[grant("approved", max_escalation_levels=1)] * (n - len(g.grants)))
    if what == "fields":
        return replace(
            g, fields=tuple(DocumentField(f"f{i}", FieldType.TEXT, label("F")) for i in range(n))
        )
    return with_field(g, 0, choices=tuple(Choice(f"c{i}", label("C")) for i in range(n)))


@pytest.mark.parametrize(
    ("what", "cap"),
    [
        ("states", MAX_STATES),
        ("transitions", MAX_TRANSITIONS),
        ("grants", MAX_GRANTS),
        ("fields", MAX_FIELDS),
        ("choices", MAX_CHOICES),
    ],
)
def test_the_size_caps_allow_the_maximum_and_refuse_one_more_with_nothing_else(what, cap):
    # At the cap the graph may be wrong in other ways (orphans, unused grants), never in size.
    assert "too_large" not in codes(run(sized(valid(), what, cap)))

    [v] = run(sized(valid(), what, cap + 1))
    assert (v.rule, v.code, v.severity, v.path, v.ref) == (0, "too_large", ERROR, "", {})


def test_the_caps_are_the_documented_ones():
    assert (MAX_STATES, MAX_TRANSITIONS, MAX_GRANTS, MAX_FIELDS) == (64, 256, 256, 32)


def test_a_graph_over_the_cap_is_reported_once_and_never_walked():
    huge = plus(valid(), states=[state(f"extra_{i}", StateRole.CUSTOM) for i in range(59)])
    assert len(huge.states) == 65
    assert codes(run(huge)) == ["too_large"]


# --- rule 2 --------------------------------------------------------------------------


def test_a_terminal_state_may_be_left_only_into_a_dispute():
    disputed = plus(
        valid(),
        states=[state("disputed", StateRole.DISPUTE)],
        transitions=[
            go("dispute", "done", "disputed", Gate.REQUESTER, comment=CommentPolicy.REQUIRED),
            go("dismiss", "disputed", "done", Gate.SOURCE, comment=CommentPolicy.REQUIRED),
        ],
        grants=[grant("disputed", GranteeKind.ROLE, role=Role.ADMIN)],
    )
    assert run(disputed) == []

    archived = plus(
        valid(),
        states=[state("archived", StateRole.CUSTOM, terminal=True)],
        transitions=[go("archive", "done", "archived", Gate.REQUESTER)],
    )
    [v] = run(archived)
    assert (v.code, v.ref, v.path) == (
        "terminal_exit_not_dispute",
        {"transition": 7},
        "transitions[7]",
    )


# --- rule 3: money is committed once ----------------------------------------------------


def test_a_loop_back_through_a_reversing_state_is_fine_but_a_loop_without_one_posts_twice():
    through_rejected = plus(
        valid(),
        transitions=[
            go(
                "query",
                "paid",
                "rejected",
                Gate.SOURCE,
                comment=CommentPolicy.REQUIRED,
                reverses=True,
            )
        ],
    )
    assert run(through_rejected) == []

    straight_back = plus(valid(), transitions=[go("reopen", "paid", "approved", Gate.REQUESTER)])
    found = assert_only(straight_back, "accrual_on_cycle")
    assert sorted(codes(found)) == ["accrual_on_cycle", "payout_on_cycle"]
    assert {v.params["state"] for v in found} == {"approved", "paid"}


def test_the_posting_order_is_declared_not_assumed():
    swapped = with_state(with_state(valid(), 2, role=StateRole.PAYOUT), 3, role=StateRole.ACCRUAL)
    pay_first = replace(swapped, posting_order=PostingOrder.PAYOUT_FIRST)
    # The rejection out of what is now the payout may keep its reversal flag: before any
    # accrual it reverses nothing, harmlessly.
    assert run(pay_first) == []

    [v] = run(replace(swapped, posting_order=PostingOrder.ACCRUAL_FIRST))
    assert (v.code, v.ref) == ("payout_before_accrual", {"state": "approved"})


def test_a_flow_that_pays_first_must_accrue_after_paying_on_every_path():
    assert run(valid()) == []
    found = run(replace(valid(), posting_order=PostingOrder.PAYOUT_FIRST))
    assert codes(found) == ["accrual_before_payout", "payout_without_accrual"]
    assert found[1].params == {"state": "paid", "terminal": "done"}


def test_two_accruals_on_one_path_are_counted_across_intermediate_states():
    rebook = plus(
        with_transition(valid(), 2, to_state="rebooked"),
        states=[state("rebooked", StateRole.ACCRUAL)],
        transitions=[go("pay", "rebooked", "paid", Gate.TARGET)],
        grants=[grant("rebooked")],
    )
    [v] = run(rebook)
    assert (v.code, v.ref) == ("accrual_repeated", {"state": "draft"})


def test_counting_starts_again_after_a_reversal():
    # rejected -> approved re-books, but the rejection reversed the first booking.
    rebook = plus(
        valid(),
        transitions=[go("rebook", "rejected", "approved", Gate.TARGET)],
    )
    assert run(rebook) == []


# --- rules 4 to 7 --------------------------------------------------------------------


def test_an_all_states_grant_satisfies_every_gate():
    without_paid = replace(valid(), grants=valid().grants[:1])
    found = assert_only(without_paid, "gate_without_grant")
    assert [v.ref for v in found] == [{"transition": 2}, {"transition": 5}]

    everywhere = plus(
        without_paid, grants=[Grant(all_states=True, grantee=Grantee(GranteeKind.UNIT_HEAD))]
    )
    assert run(everywhere) == []


def test_a_rejection_past_the_accrual_must_reverse_it():
    assert valid().transitions[5].reverses
    [v] = run(with_transition(valid(), 5, reverses=False))
    assert (v.rule, v.code, v.ref, v.path) == (
        5,
        "reversal_missing",
        {"transition": 5},
        "transitions[5].reverses",
    )
    # The rejection before the accrual needs no reversal: there is nothing to reverse.
    assert not valid().transitions[4].reverses


def test_bands_must_reach_down_to_zero():
    floors = plus(
        with_grant(valid(), 0, min_amount=Decimal("5000.00"), currency=BASE),
        grants=[grant("approved", GranteeKind.UNIT_HEAD, min_amount=Decimal(0), currency=BASE)],
    )
    assert run(floors) == []

    only_high = with_grant(valid(), 0, min_amount=Decimal("5000.00"), currency=BASE)
    [v] = run(only_high)
    assert (v.rule, v.code, v.ref) == (7, "bands_do_not_reach_zero", {"state": "approved"})


def test_a_floor_left_out_counts_as_zero():
    no_floor = plus(
        valid(),
        grants=[grant("approved", GranteeKind.UNIT_HEAD, min_amount=Decimal(5000), currency=BASE)],
    )
    assert run(no_floor) == []


# --- beyond the numbered rules (reported as rule 8) ----------------------------------


def test_a_human_must_commit_money_but_a_deadline_may_fire_a_rejection():
    auto_reject = with_state(
        valid(),
        1,
        deadline=Deadline(after="48h", on_breach=BreachAction.AUTO, transition="reject"),
    )
    assert run(auto_reject) == []

    auto_approve = with_state(
        valid(),
        1,
        deadline=Deadline(after="48h", on_breach=BreachAction.AUTO, transition="approve"),
    )
    [v] = run(auto_approve)
    assert (v.rule, v.code, v.path) == (8, "auto_transition_posts", "states[1].deadline.transition")


def test_warnings_do_not_block_and_come_with_their_own_severity():
    found = run(plus(valid(), grants=[grant("pending"), valid().grants[0]]))
    assert errors_in(found) == []
    assert [(v.code, v.severity, v.ref) for v in found] == [
        ("grant_unused", WARNING, {"grant": 2}),
        ("grant_duplicate", WARNING, {"grant": 3}),
    ]


# --- the order of the report ---------------------------------------------------------


def test_the_gate_rules_report_transition_by_transition_whichever_rule_breaks():
    # "pay" and the rejection borrowing its gate lose their grant (rule 4); a second way
    # forward from "pending" leaves its rejection without a sibling to borrow (rule 6).
    g = plus(
        replace(valid(), grants=valid().grants[:1]),
        states=[state("side", StateRole.PENDING)],
        transitions=[
            go("escalate", "pending", "side", Gate.TARGET),
            go("approve", "side", "approved", Gate.TARGET),
        ],
        grants=[grant("side")],
    )
    gate_codes = {"gate_without_grant", "advance_sibling_count", "bands_do_not_reach_zero"}
    assert [(v.code, v.ref) for v in run(g) if v.code in gate_codes] == [
        ("gate_without_grant", {"transition": 2}),
        ("advance_sibling_count", {"transition": 4}),
        ("gate_without_grant", {"transition": 5}),
    ]


def test_the_deadline_checks_report_state_by_state():
    reminded_draft = with_state(
        valid(), 0, deadline=Deadline(after="3d", on_breach=BreachAction.REMIND)
    )
    g = with_state(
        reminded_draft,
        1,
        deadline=Deadline(after="48h", on_breach=BreachAction.AUTO, transition="approve"),
    )
    assert [(v.code, v.ref) for v in run(g)] == [
        ("deadline_without_tasks", {"state": "draft"}),
        ("auto_transition_posts", {"state": "pending"}),
    ]


# --- the shape of a violation --------------------------------------------------------


def test_every_violation_names_its_rule_code_severity_and_place():
    for code, breaking in BREAKS.items():
        for v in run(breaking(valid())):
            assert isinstance(v.rule, int) and 0 <= v.rule <= 8, code
            assert v.code in CODES or v.code.startswith("guard_"), code
            assert v.severity in (ERROR, WARNING), code
            assert isinstance(v.ref, dict) and len(v.ref) <= 1, code
            assert isinstance(v.path, str), code
            data = v.to_json("a message")
            assert set(data) == {"rule", "code", "severity", "message", "ref", "path"}
            assert data["message"] == "a message"
            assert data["code"] == v.code


# --- the database-aware checks, as a pure function ------------------------------------


def test_a_member_or_position_grantee_must_be_active_here():
    named = plus(
        valid(),
        grants=[
            grant("approved", GranteeKind.MEMBER, member=7),
            grant("paid", GranteeKind.POSITION, position=3),
        ],
    )
    assert grantee_violations(named, active_members={7, 8}, active_positions={3}) == []

    found = grantee_violations(named, active_members={8}, active_positions=set())
    assert [(v.rule, v.code, v.severity, v.ref, v.path, dict(v.params)) for v in found] == [
        (
            0,
            "grantee_member_unknown",
            ERROR,
            {"grant": 2},
            "grants[2].grantee.member",
            {"member": 7},
        ),
        (
            0,
            "grantee_position_unknown",
            ERROR,
            {"grant": 3},
            "grants[3].grantee.position",
            {"position": 3},
        ),
    ]
    for v in found:
        assert "%(" not in str(MESSAGES[v.code]) % dict(v.params)


@pytest.mark.parametrize("tail", ["\n", "\r\n", " ", "\t", "\x00"])
def test_a_key_ending_in_an_invisible_character_is_not_a_key(tail):
    """``re.match`` with ``$`` took "expense_claim\\n" for a key: a second, invisible
    "Expense claim" flow could be published beside the real one."""
    assert run(valid()) == []

    assert codes(run(replace(valid(), kind=f"expense_claim{tail}"))) == ["flow_kind_invalid"]
    renamed = replace(
        valid(), states=tuple(replace(s, key=f"{s.key}{tail}") for s in valid().states)
    )
    assert "state_key_invalid" in codes(run(renamed))
