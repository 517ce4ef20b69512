"""Beyond the numbered rules (DESIGN §6, "Plus:"), reported as rule 8: a rejection, a
cancellation or a dispute requires a comment, and an automatic deadline may not fire a
transition into an accrual or payout state (no money without a human)."""

from __future__ import annotations

from portal.domain.graph import BreachAction, CommentPolicy, StateRole
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import Violation, describe, violation

_NEEDS_COMMENT = (*StateRole.REVERSING, StateRole.DISPUTE)


def comments_required(index: GraphIndex) -> list[Violation]:
    transitions = index.graph.transitions
    out = []
    for i in index.entering_any(_NEEDS_COMMENT):
        t = transitions[i]
        if t.comment != CommentPolicy.REQUIRED:
            out.append(
                violation(
                    "comment_not_required",
                    {"transition": i},
                    f"transitions[{i}].comment",
                    transition=describe(t),
                )
            )
    return out


def automatic_moves_into_money(index: GraphIndex) -> list[tuple[int, Violation]]:
    """Each violation with the index of the state whose deadline would fire."""
    g = index.graph
    out = []
    for i, s in enumerate(g.states):
        d = s.deadline
        if d is None or d.on_breach != BreachAction.AUTO or not d.transition:
            continue
        fired = g.transition(s.key, d.transition)
        if fired is not None and g.states[index.position[fired.to_state]].role in StateRole.POSTING:
            out.append(
                (
                    i,
                    violation(
                        "auto_transition_posts",
                        {"state": s.key},
                        f"states[{i}].deadline.transition",
                        transition=describe(fired),
                    ),
                )
            )
    return out
