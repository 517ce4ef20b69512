"""What the validator reports: a violation, the rule it breaks and every code it uses.

Each violation names its rule, a stable code, a severity, where it is (``ref`` for the
editor to highlight, ``path`` for people) and the parameters of its message; messages
are translated at the edge from ``messages.MESSAGES``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from portal.domain.graph import Transition

ERROR = "error"  # blocks publishing
WARNING = "warning"  # shown, never blocking

# {"state": key}, {"transition": index}, {"grant": index}, {"field": key}, or {} for the
# flow as a whole.
Ref: TypeAlias = Mapping[str, str | int]
Params: TypeAlias = Mapping[str, str | int]


class Rule:
    """DESIGN §6's rules by what they check; the number is what a violation carries."""

    WELL_FORMED = 0
    INITIAL_AND_TERMINAL = 1
    REACHABLE_WITHOUT_DEAD_ENDS = 2
    MONEY_COMMITTED_ONCE = 3
    GRANTS_ON_GATES = 4
    REVERSALS = 5
    ADVANCE_GATES = 6
    BANDS_REACH_ZERO = 7
    # DESIGN §6 numbers its rules 0-7 and lists further checks after them ("Plus:"):
    # comments on rejections, cancellations and disputes, and no automatic move into
    # money. They, and the warnings for dead configuration, are reported as rule 8,
    # the number the editor's JSON carries for them.
    COMMENTS_AND_AUTOMATIC_MOVES = 8
    DEAD_CONFIGURATION = 8
    # Exclusive approval against the org chart: a step some requester would find empty.
    EXCLUSIVE_STAFFING = 8


# Every code the validator itself emits: (rule, severity). Guard codes come from
# ``guards`` and are well-formedness errors too.
CODES: dict[str, tuple[int, str]] = {
    # rule 0 — well-formed
    "too_large": (Rule.WELL_FORMED, ERROR),
    "flow_kind_invalid": (Rule.WELL_FORMED, ERROR),
    "posting_order_unknown": (Rule.WELL_FORMED, ERROR),
    "label_en_missing": (Rule.WELL_FORMED, ERROR),
    "label_locale_unsupported": (Rule.WELL_FORMED, ERROR),
    "label_too_long": (Rule.WELL_FORMED, ERROR),
    "field_key_invalid": (Rule.WELL_FORMED, ERROR),
    "field_key_duplicate": (Rule.WELL_FORMED, ERROR),
    "field_type_unknown": (Rule.WELL_FORMED, ERROR),
    "field_choices_missing": (Rule.WELL_FORMED, ERROR),
    "field_choices_unexpected": (Rule.WELL_FORMED, ERROR),
    "choice_key_invalid": (Rule.WELL_FORMED, ERROR),
    "choice_key_duplicate": (Rule.WELL_FORMED, ERROR),
    "state_key_invalid": (Rule.WELL_FORMED, ERROR),
    "state_key_duplicate": (Rule.WELL_FORMED, ERROR),
    "state_role_unknown": (Rule.WELL_FORMED, ERROR),
    "approval_unsupported": (Rule.WELL_FORMED, ERROR),
    "escalate_after_invalid": (Rule.WELL_FORMED, ERROR),
    "deadline_after_invalid": (Rule.WELL_FORMED, ERROR),
    "deadline_action_unknown": (Rule.WELL_FORMED, ERROR),
    "deadline_transition_unknown": (Rule.WELL_FORMED, ERROR),
    "deadline_transition_unexpected": (Rule.WELL_FORMED, ERROR),
    "transition_key_invalid": (Rule.WELL_FORMED, ERROR),
    "transition_state_unknown": (Rule.WELL_FORMED, ERROR),
    "transition_self_loop": (Rule.WELL_FORMED, ERROR),
    "transition_duplicate": (Rule.WELL_FORMED, ERROR),
    "gate_unknown": (Rule.WELL_FORMED, ERROR),
    "comment_policy_unknown": (Rule.WELL_FORMED, ERROR),
    "grant_scope_invalid": (Rule.WELL_FORMED, ERROR),
    "grant_state_unknown": (Rule.WELL_FORMED, ERROR),
    "grantee_kind_missing": (Rule.WELL_FORMED, ERROR),
    "grantee_kind_unknown": (Rule.WELL_FORMED, ERROR),
    "grantee_member_missing": (Rule.WELL_FORMED, ERROR),
    "grantee_position_missing": (Rule.WELL_FORMED, ERROR),
    "grantee_levels_missing": (Rule.WELL_FORMED, ERROR),
    "grantee_role_missing": (Rule.WELL_FORMED, ERROR),
    "grantee_ref_invalid": (Rule.WELL_FORMED, ERROR),
    "levels_up_invalid": (Rule.WELL_FORMED, ERROR),
    "grantee_role_unknown": (Rule.WELL_FORMED, ERROR),
    "grantee_member_unknown": (
        Rule.WELL_FORMED,
        ERROR,
    ),  # database-aware: see ``grantee_violations``
    "grantee_position_unknown": (Rule.WELL_FORMED, ERROR),  # database-aware
    "floor_negative": (Rule.WELL_FORMED, ERROR),
    "floor_currency_missing": (Rule.WELL_FORMED, ERROR),
    "floor_currency_mismatch": (Rule.WELL_FORMED, ERROR),
    "floor_currency_without_amount": (Rule.WELL_FORMED, ERROR),
    "floor_too_precise": (Rule.WELL_FORMED, ERROR),  # database-aware: the currency's places
    "on_vacancy_unknown": (Rule.WELL_FORMED, ERROR),
    "escalation_bound_invalid": (Rule.WELL_FORMED, ERROR),
    # rule 1 — one initial state, a terminal one
    "initial_state_count": (Rule.INITIAL_AND_TERMINAL, ERROR),
    "no_terminal_state": (Rule.INITIAL_AND_TERMINAL, ERROR),
    # rule 2 — reachable, no dead ends
    "state_unreachable": (Rule.REACHABLE_WITHOUT_DEAD_ENDS, ERROR),
    "state_no_exit": (Rule.REACHABLE_WITHOUT_DEAD_ENDS, ERROR),
    "terminal_exit_not_dispute": (Rule.REACHABLE_WITHOUT_DEAD_ENDS, ERROR),
    # rule 3 — money is committed once, in the declared order
    "accrual_on_cycle": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    "payout_on_cycle": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    "accrual_repeated": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    "payout_repeated": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    "payout_before_accrual": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    "accrual_before_payout": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    "payout_without_accrual": (Rule.MONEY_COMMITTED_ONCE, ERROR),
    # rule 4 — a grant on every gate
    "gate_without_grant": (Rule.GRANTS_ON_GATES, ERROR),
    # rule 5 — rejections past an accrual reverse it
    "reversal_missing": (Rule.REVERSALS, ERROR),
    "reverses_unexpected": (Rule.REVERSALS, WARNING),
    # rule 6 — an advance gate has one target-gated sibling
    "advance_sibling_count": (Rule.ADVANCE_GATES, ERROR),
    # rule 7 — bands reach down to zero
    "bands_do_not_reach_zero": (Rule.BANDS_REACH_ZERO, ERROR),
    # beyond the numbered rules: comments and automatic moves
    "comment_not_required": (Rule.COMMENTS_AND_AUTOMATIC_MOVES, ERROR),
    "auto_transition_posts": (Rule.COMMENTS_AND_AUTOMATIC_MOVES, ERROR),
    # beyond the numbered rules: dead configuration
    "grant_unused": (Rule.DEAD_CONFIGURATION, WARNING),
    "grant_duplicate": (Rule.DEAD_CONFIGURATION, WARNING),
    "deadline_without_tasks": (Rule.DEAD_CONFIGURATION, WARNING),
    # beyond the numbered rules: exclusive approval against the chart (database-aware:
    # see ``exclusive_staffing``)
    "exclusive_approval_unstaffed": (Rule.EXCLUSIVE_STAFFING, WARNING),
}


@dataclass(frozen=True)
class Violation:
    rule: int
    code: str
    severity: str
    # What the editor highlights (see ``Ref``).
    ref: Ref = field(default_factory=dict)
    # Where, for people and for import errors: "transitions[3].guard".
    path: str = ""
    params: Params = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_json(self, message: str) -> dict[str, str | int | dict[str, str | int]]:
        return {
            "rule": self.rule,
            "code": self.code,
            "severity": self.severity,
            "message": message,
            "ref": dict(self.ref),
            "path": self.path,
        }


def violation(code: str, ref: Ref, path: str, **params: str | int) -> Violation:
    """A violation of one of the codes above, with its rule and severity."""
    rule, severity = CODES[code]
    return Violation(rule, code, severity, dict(ref), path, params)


def errors_in(violations: Iterable[Violation]) -> list[Violation]:
    return [v for v in violations if v.is_error]


def describe(t: Transition) -> str:
    """A transition as messages name it: its action and both ends."""
    return f"{t.key} ({t.from_state} → {t.to_state})"
