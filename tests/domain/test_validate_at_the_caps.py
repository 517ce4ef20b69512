"""The validator at the size caps: the benchmark's generated graph (64 states, 256
transitions, 256 grants), valid, and copies of it broken in one or many places, each
with every violation it must report, in order, to the letter.

``test_validate.py`` tells each rule's story on a small flow; these pin the whole report
on a large one, where the order of findings across rules and elements, and each
message's parameters, are easy to change by accident while making the validator faster.
The copies keep the graph at the caps, so every rule walks it in full.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from decimal import Decimal
from typing import Any

import pytest

from portal.bench.validate import BENCH_CURRENCY, capped_graph
from portal.domain.graph import (
    BreachAction,
    Choice,
    CommentPolicy,
    Deadline,
    Gate,
    Grantee,
    GranteeKind,
    Graph,
    PostingOrder,
    StateRole,
    TransitionGuard,
)
from portal.domain.labels import Labels
from portal.domain.validate import ERROR, WARNING, Violation, validate
from portal.domain.validate.well_formed_grants import GRANTEE_FIELDS
from tests.domain.test_validate import with_grant, with_state, with_transition

# Where things sit in the capped graph: states[0] is the draft, states[1..58] the steps
# step_01..step_58, then booked (accrual), paid (payout), done, rejected, cancelled.
# transitions[i] for i < 61 is go_i along the chain (go_0 leaves the draft), 61..119 the
# rejections (advance gate, from step_01..step_58 and booked), 120 revise, 121..178 the
# withdrawals, then fast tracks (source gate). grants[4k..4k+3] are the four bands of the
# k-th step (then booked, paid), floors 0, 1000, 5000 and 20000; 240..255 cover all states.
DRAFT, BOOKED, PAID, REJECTED, CANCELLED = 0, 59, 60, 62, 63
REJECT_FROM_BOOKED, REVISE = 119, 120
FIRST_ALL_STATES_GRANT = 240


def with_grant_copied(g: Graph, i: int, source: int) -> Graph:
    """Grant ``i`` replaced by an equal copy (a new object) of grant ``source``."""
    return replace(g, grants=(*g.grants[:i], replace(g.grants[source]), *g.grants[i + 1 :]))


def labels(**texts: str) -> Labels:
    return Labels(texts)


# --- the breaks ------------------------------------------------------------------------


def unreachable_step(g: Graph) -> Graph:
    """The draft submits straight to step_02: nothing enters step_01 any more."""
    return with_transition(g, 0, to_state="step_02")


def duplicate_grants(g: Graph) -> Graph:
    """A step's second band copies its first; the last all-states grant copies the first."""
    return with_grant_copied(with_grant_copied(g, 1, 0), 255, FIRST_ALL_STATES_GRANT)


def transitions_to_unknown_states(g: Graph) -> Graph:
    return with_transition(with_transition(g, 10, to_state="nowhere"), 200, from_state="elsewhere")


def labels_missing_a_language(g: Graph) -> Graph:
    g = with_state(g, 3, labels=labels(zh="步骤", fr="étape"))
    g = with_transition(g, 5, labels=labels(en="A" * 201, ms=" "))
    g = with_state(g, 7, labels=labels(en="  "))
    guarded = g.transitions[4]
    assert guarded.guard is not None
    return with_transition(g, 4, guard=replace(guarded.guard, message=labels(ms="Hanya")))


def rule_zero_everywhere(g: Graph) -> Graph:
    """One or two well-formedness errors of every kind, across the whole graph."""
    g = replace(g, kind="Capped Flow", posting_order="sideways", labels=labels(zh="上限"))
    category = g.fields[0]
    g = replace(
        g,
        fields=(
            replace(
                category,
                choices=(*category.choices, Choice("Other", labels(en="x")), category.choices[0]),
            ),
            replace(category, key="category", type="colour", choices=()),
        ),
    )
    g = with_state(g, 2, key="Step_02")
    g = with_state(g, 4, key="step_03")
    g = with_state(g, 6, role="boss", approval="all", escalate_after="2w")
    g = with_state(g, 8, deadline=Deadline(after="0m", on_breach="panic"))
    g = with_state(
        g, 9, deadline=Deadline(after="48h", on_breach=BreachAction.AUTO, transition="x")
    )
    g = with_state(g, 11, deadline=Deadline(after="1d", on_breach="remind", transition="go_11"))
    g = with_transition(g, 12, key="Go")
    g = with_transition(g, 13, to_state="step_13")
    g = with_transition(g, 14, gate="anyone", comment="maybe")
    g = with_transition(g, 16, guard=TransitionGuard("document.amount >", labels(en="Amount")))
    g = with_transition(
        g, 17, guard=TransitionGuard("document.fields.colour == 'red'", labels(en="Red"))
    )
    g = replace(g, transitions=(*g.transitions[:-1], g.transitions[1]))  # a duplicate
    g = with_grant(g, 5, all_states=True)
    g = with_grant(g, 6, state="nowhere")
    g = with_grant(g, 7, grantee=Grantee(kind=""))
    g = with_grant(g, 9, grantee=Grantee(kind="boss"))
    g = with_grant(g, 10, grantee=Grantee(GranteeKind.MEMBER))
    g = with_grant(g, 11, grantee=Grantee(GranteeKind.SUPERIOR, member=7))
    g = with_grant(g, 13, grantee=Grantee(GranteeKind.LEVELS_UP, levels=0))
    g = with_grant(g, 14, grantee=Grantee(GranteeKind.ROLE, role="janitor"))
    g = with_grant(g, 15, min_amount=Decimal("-1"))
    g = with_grant(g, 17, currency="USD")
    g = with_grant(g, 18, currency=None)
    g = with_grant(g, 19, min_amount=None)
    g = with_grant(g, 21, on_vacancy="wait", max_escalation_levels=0)
    return g


def two_drafts(g: Graph) -> Graph:
    return with_state(g, 30, role=StateRole.DRAFT)


def posting_twice(g: Graph) -> Graph:
    """A second accrual mid-chain: booked twice on the way, and every rejection past it
    must now reverse."""
    return with_state(g, 30, role=StateRole.ACCRUAL)


def paid_back_into_booked(g: Graph) -> Graph:
    return with_transition(g, 255, from_state="paid", to_state="booked", gate=Gate.REQUESTER)


def paying_first(g: Graph) -> Graph:
    return replace(g, posting_order=PostingOrder.PAYOUT_FIRST)


def dead_ends(g: Graph) -> Graph:
    """The rejected state loses its way back (revise leaves the cancelled terminal now)."""
    return with_transition(g, REVISE, from_state="cancelled")


def gates_and_bands(g: Graph) -> Graph:
    """step_20 moves on by a source gate (its rejection has no sibling to borrow from);
    step_10's lowest band starts at 1; the all-states grants sit on the draft, where no
    gate reads them; step_40's bands move to done, so nothing authorises leaving 40."""
    g = with_transition(g, 20, gate=Gate.SOURCE)
    g = with_grant(g, 4 * 9, min_amount=Decimal(1))
    for i in range(FIRST_ALL_STATES_GRANT, len(g.grants)):
        g = with_grant(g, i, all_states=False, state="draft")
    for i in range(4 * 39, 4 * 40):
        g = with_grant(g, i, state="done")
    return g


def comments_and_reversals(g: Graph) -> Graph:
    g = with_transition(g, 61, comment=CommentPolicy.OPTIONAL)
    g = with_transition(g, 130, comment=None)
    g = with_transition(g, REJECT_FROM_BOOKED, reverses=False)
    g = with_transition(g, 3, reverses=True)
    return g


def deadlines(g: Graph) -> Graph:
    g = with_state(g, DRAFT, deadline=Deadline(after="3d", on_breach=BreachAction.REMIND))
    g = with_state(
        g, 5, deadline=Deadline(after="2d", on_breach=BreachAction.AUTO, transition="go_5")
    )
    g = with_state(
        g, 58, deadline=Deadline(after="2d", on_breach=BreachAction.AUTO, transition="go_58")
    )
    g = with_state(g, CANCELLED, escalate_after="1d")
    return with_state(
        g, PAID, deadline=Deadline(after="2d", on_breach=BreachAction.AUTO, transition="go_60")
    )


def everything_after_rule_one(g: Graph) -> Graph:
    """Every graph rule broken at once, so their findings interleave in the report."""
    for breaking in (
        unreachable_step,
        duplicate_grants,
        posting_twice,
        gates_and_bands,
        comments_and_reversals,
        deadlines,
    ):
        g = breaking(g)
    return g


# --- what each must report ---------------------------------------------------------------


def error(rule: int, code: str, ref: dict[str, Any], path: str, /, **params: Any) -> Violation:
    return Violation(rule, code, ERROR, ref, path, params)


def warning(rule: int, code: str, ref: dict[str, Any], path: str, /, **params: Any) -> Violation:
    return Violation(rule, code, WARNING, ref, path, params)


def state_error(
    rule: int, code: str, i: int, key: str, where: str = "", /, **params: Any
) -> Violation:
    return error(rule, code, {"state": key}, f"states[{i}]{where}", **params)


def transition_error(rule: int, code: str, i: int, where: str = "", /, **params: Any) -> Violation:
    return error(rule, code, {"transition": i}, f"transitions[{i}]{where}", **params)


def grant_error(code: str, i: int, where: str = "", /, **params: Any) -> Violation:
    return error(0, code, {"grant": i}, f"grants[{i}]{where}", **params)


def unknown_step(i: int, end: str, key: str) -> Violation:
    return transition_error(0, "transition_state_unknown", i, f".{end}", state=key)


def reversals_missing_past(step: int) -> list[Violation]:
    """Every rejection and withdrawal from ``step`` on (up to step_58) that must reverse."""
    return [
        transition_error(
            5,
            "reversal_missing",
            first + k,
            ".reverses",
            transition=f"{action} (step_{k + 1:02d} → {into})",
        )
        for first, action, into in ((61, "reject", "rejected"), (121, "withdraw", "cancelled"))
        for k in range(step - 1, 58)
    ]


def grants_unused(grants: range, state: str) -> list[Violation]:
    return [warning(8, "grant_unused", {"grant": i}, f"grants[{i}]", state=state) for i in grants]


def gate_without_grant(i: int, transition: str) -> Violation:
    return transition_error(
        4, "gate_without_grant", i, ".gate", transition=transition, state="step_40"
    )


GATES_AND_BANDS = [
    # The gate rules, transition by transition: go_9 is the first gated on step_10.
    state_error(7, "bands_do_not_reach_zero", 10, "step_10", state="step_10"),
    gate_without_grant(39, "go_39 (step_39 → step_40)"),
    transition_error(6, "advance_sibling_count", 80, ".gate", state="step_20", count=0),
    gate_without_grant(99, "reject (step_39 → rejected)"),
    gate_without_grant(218, "fast_track_2 (step_40 → step_42)"),
]
COMMENTS = [
    transition_error(
        8, "comment_not_required", 61, ".comment", transition="reject (step_01 → rejected)"
    ),
    transition_error(
        8, "comment_not_required", 130, ".comment", transition="withdraw (step_10 → cancelled)"
    ),
]
DEADLINES = [
    warning(8, "deadline_without_tasks", {"state": "draft"}, "states[0]", state="draft"),
    state_error(
        8,
        "auto_transition_posts",
        58,
        "step_58",
        ".deadline.transition",
        transition="go_58 (step_58 → booked)",
    ),
    warning(8, "deadline_without_tasks", {"state": "paid"}, "states[60]", state="paid"),
    warning(8, "deadline_without_tasks", {"state": "cancelled"}, "states[63]", state="cancelled"),
]
REVERSES_UNEXPECTED = warning(
    5,
    "reverses_unexpected",
    {"transition": 3},
    "transitions[3].reverses",
    transition="go_3 (step_03 → step_04)",
)
BOOKED_NOT_REVERSED = transition_error(
    5, "reversal_missing", 119, ".reverses", transition="reject (booked → rejected)"
)

EXPECTED: dict[Callable[[Graph], Graph], list[Violation]] = {
    unreachable_step: [state_error(2, "state_unreachable", 1, "step_01", state="step_01")],
    duplicate_grants: [
        warning(8, "grant_duplicate", {"grant": 1}, "grants[1]"),
        warning(8, "grant_duplicate", {"grant": 255}, "grants[255]"),
    ],
    transitions_to_unknown_states: [
        unknown_step(10, "to", "nowhere"),
        unknown_step(200, "from", "elsewhere"),
    ],
    labels_missing_a_language: [
        state_error(0, "label_en_missing", 3, "step_03", ".labels"),
        state_error(0, "label_locale_unsupported", 3, "step_03", ".labels.fr", locale="fr"),
        state_error(0, "label_en_missing", 7, "step_07", ".labels"),
        transition_error(0, "label_en_missing", 4, ".guard.message.labels"),
        transition_error(0, "label_too_long", 5, ".labels.en", limit=200),
    ],
    rule_zero_everywhere: [
        error(0, "flow_kind_invalid", {}, "kind", kind="Capped Flow"),
        error(0, "posting_order_unknown", {}, "posting_order", value="sideways"),
        error(0, "label_en_missing", {}, "labels"),
        error(
            0, "choice_key_invalid", {"field": "category"}, "fields[0].choices[3].key", key="Other"
        ),
        error(
            0,
            "choice_key_duplicate",
            {"field": "category"},
            "fields[0].choices[4].key",
            key="travel",
        ),
        error(0, "field_key_duplicate", {"field": "category"}, "fields[1].key", key="category"),
        error(0, "field_type_unknown", {"field": "category"}, "fields[1].type", type="colour"),
        state_error(0, "state_key_invalid", 2, "Step_02", ".key", key="Step_02"),
        state_error(0, "state_key_duplicate", 4, "step_03", ".key", key="step_03"),
        state_error(0, "state_role_unknown", 6, "step_06", ".role", role="boss"),
        state_error(0, "approval_unsupported", 6, "step_06", ".approval", approval="all"),
        state_error(0, "escalate_after_invalid", 6, "step_06", ".escalate_after", value="2w"),
        # step_02 and step_04 are gone (renamed, shadowed): every transition naming them.
        unknown_step(1, "to", "step_02"),
        unknown_step(2, "from", "step_02"),
        unknown_step(3, "to", "step_04"),
        unknown_step(4, "from", "step_04"),
        transition_error(0, "transition_key_invalid", 12, ".key", key="Go"),
        transition_error(0, "transition_self_loop", 13, state="step_13"),
        transition_error(0, "gate_unknown", 14, ".gate", gate="anyone"),
        transition_error(0, "comment_policy_unknown", 14, ".comment", value="maybe"),
        transition_error(0, "guard_unexpected_end", 16, ".guard.expression", column=18),
        transition_error(
            0,
            "guard_unknown_path",
            17,
            ".guard.expression",
            path="document.fields.colour",
            column=1,
        ),
        unknown_step(62, "from", "step_02"),
        unknown_step(64, "from", "step_04"),
        unknown_step(122, "from", "step_02"),
        unknown_step(124, "from", "step_04"),
        unknown_step(180, "from", "step_02"),
        unknown_step(180, "to", "step_04"),
        unknown_step(182, "from", "step_04"),
        unknown_step(235, "to", "step_04"),
        unknown_step(236, "from", "step_02"),
        unknown_step(238, "from", "step_04"),
        unknown_step(255, "to", "step_02"),
        transition_error(
            0, "transition_duplicate", 255, ".key", transition="go_1 (step_01 → step_02)"
        ),
        state_error(0, "deadline_after_invalid", 8, "step_08", ".deadline.after", value="0m"),
        state_error(
            0, "deadline_action_unknown", 8, "step_08", ".deadline.on_breach", action="panic"
        ),
        state_error(
            0,
            "deadline_transition_unknown",
            9,
            "step_09",
            ".deadline.transition",
            state="step_09",
            transition="x",
        ),
        state_error(
            0,
            "deadline_transition_unexpected",
            11,
            "step_11",
            ".deadline.transition",
            action="remind",
        ),
        grant_error("grant_state_unknown", 4, ".state", state="step_02"),
        grant_error("grant_scope_invalid", 5, ".state"),
        grant_error("grant_state_unknown", 6, ".state", state="nowhere"),
        grant_error("grant_state_unknown", 7, ".state", state="step_02"),
        grant_error("grantee_kind_missing", 7, ".grantee.kind"),
        grant_error("grantee_kind_unknown", 9, ".grantee.kind", kind="boss"),
        grant_error("grantee_member_missing", 10, ".grantee.member"),
        grant_error("grantee_ref_invalid", 11, ".grantee", kind="superior"),
        grant_error("grant_state_unknown", 12, ".state", state="step_04"),
        grant_error("grant_state_unknown", 13, ".state", state="step_04"),
        grant_error("levels_up_invalid", 13, ".grantee.levels", low=1, high=9),
        grant_error("grant_state_unknown", 14, ".state", state="step_04"),
        grant_error("grantee_role_unknown", 14, ".grantee.role", role="janitor"),
        grant_error("grant_state_unknown", 15, ".state", state="step_04"),
        grant_error("floor_negative", 15, ".min_amount", amount="-1"),
        grant_error("floor_currency_mismatch", 17, ".currency", currency="USD", base="MYR"),
        grant_error("floor_currency_missing", 18, ".currency", base="MYR"),
        grant_error("floor_currency_without_amount", 19, ".currency"),
        grant_error("on_vacancy_unknown", 21, ".on_vacancy", value="wait"),
        grant_error("escalation_bound_invalid", 21, ".max_escalation_levels", low=1, high=10),
    ],
    two_drafts: [error(1, "initial_state_count", {}, "states", count=2)],
    posting_twice: [
        state_error(3, "accrual_repeated", 0, "draft", state="draft"),
        *reversals_missing_past(30),
    ],
    paid_back_into_booked: [
        state_error(3, "accrual_on_cycle", BOOKED, "booked", state="booked"),
        state_error(3, "payout_on_cycle", PAID, "paid", state="paid"),
    ],
    paying_first: [
        state_error(3, "accrual_before_payout", PAID, "paid", state="paid"),
        state_error(3, "payout_without_accrual", PAID, "paid", state="paid", terminal="done"),
    ],
    dead_ends: [
        state_error(2, "state_no_exit", REJECTED, "rejected", state="rejected"),
        transition_error(2, "terminal_exit_not_dispute", REVISE, state="cancelled"),
    ],
    gates_and_bands: [
        *GATES_AND_BANDS,
        *grants_unused(range(4 * 39, 4 * 40), "done"),
        *grants_unused(range(FIRST_ALL_STATES_GRANT, 256), "draft"),
    ],
    comments_and_reversals: [REVERSES_UNEXPECTED, BOOKED_NOT_REVERSED, *COMMENTS],
    deadlines: DEADLINES,
    everything_after_rule_one: [
        state_error(2, "state_unreachable", 1, "step_01", state="step_01"),
        state_error(3, "accrual_repeated", 0, "draft", state="draft"),
        REVERSES_UNEXPECTED,
        *reversals_missing_past(30)[:29],  # the rejections, then booked's, then withdrawals
        BOOKED_NOT_REVERSED,
        *reversals_missing_past(30)[29:],
        *GATES_AND_BANDS,
        *COMMENTS,
        *DEADLINES,
        warning(8, "grant_duplicate", {"grant": 1}, "grants[1]"),
        *grants_unused(range(4 * 39, 4 * 40), "done"),
        *grants_unused(range(FIRST_ALL_STATES_GRANT, 256), "draft"),
        # The last all-states grant, copied from the first, moved to the draft with it.
        warning(8, "grant_duplicate", {"grant": 255}, "grants[255]"),
    ],
}


def test_the_capped_graph_is_valid_without_even_a_warning():
    assert validate(capped_graph(), base_currency=BENCH_CURRENCY) == []


@pytest.mark.parametrize("breaking", list(EXPECTED), ids=lambda f: f.__name__)
def test_a_broken_copy_reports_exactly_its_violations_in_order(breaking):
    graph = breaking(capped_graph())
    assert (len(graph.states), len(graph.transitions), len(graph.grants)) == (64, 256, 256)

    found = validate(graph, base_currency=BENCH_CURRENCY)

    assert found == EXPECTED[breaking]
    # To the letter: the parameters' types too (a message formats "%(count)d").
    for got, want in zip(found, EXPECTED[breaking], strict=True):
        assert [(k, type(v)) for k, v in got.params.items()] == [
            (k, type(v)) for k, v in want.params.items()
        ]


@pytest.mark.parametrize("breaking", list(EXPECTED), ids=lambda f: f.__name__)
def test_the_same_graph_validated_twice_reports_the_same(breaking):
    # Whatever the validator remembers between runs must not leak into the next report.
    graph = breaking(capped_graph())
    first = validate(graph, base_currency=BENCH_CURRENCY)
    assert validate(capped_graph(), base_currency=BENCH_CURRENCY) == []
    assert validate(graph, base_currency=BENCH_CURRENCY) == first


# --- grantees are judged once per run, by every field --------------------------------------

# For each field of a grantee: a fine grantee, one differing from it in that field only, and
# what the second is refused for.
ONE_FIELD_APART = {
    "kind": (Grantee(GranteeKind.SUPERIOR), Grantee("boss"), "grantee_kind_unknown"),
    "member": (
        Grantee(GranteeKind.MEMBER, member=7),
        Grantee(GranteeKind.MEMBER),
        "grantee_member_missing",
    ),
    "position": (
        Grantee(GranteeKind.POSITION, position=3),
        Grantee(GranteeKind.POSITION),
        "grantee_position_missing",
    ),
    "levels": (
        Grantee(GranteeKind.LEVELS_UP, levels=2),
        Grantee(GranteeKind.LEVELS_UP, levels=0),
        "levels_up_invalid",
    ),
    "role": (
        Grantee(GranteeKind.ROLE, role="admin"),
        Grantee(GranteeKind.ROLE, role="janitor"),
        "grantee_role_unknown",
    ),
    "walk_up": (
        Grantee(GranteeKind.SUPERIOR),
        Grantee(GranteeKind.SUPERIOR, walk_up=True),
        "grantee_ref_invalid",
    ),
}


def test_every_field_of_a_grantee_has_a_case_and_is_one_it_is_judged_by():
    assert {f.name for f in fields(Grantee)} == set(ONE_FIELD_APART) == set(GRANTEE_FIELDS)


@pytest.mark.parametrize("field", list(ONE_FIELD_APART))
def test_grantees_one_field_apart_are_judged_apart_in_either_order(field):
    fine, wrong, code = ONE_FIELD_APART[field]
    for first, second in ((fine, wrong), (wrong, fine)):
        graph = with_grant(with_grant(capped_graph(), 0, grantee=first), 1, grantee=second)
        found = validate(graph, base_currency=BENCH_CURRENCY)
        refused = 1 if second is wrong else 0
        assert [(v.code, v.ref) for v in found] == [(code, {"grant": refused})]
