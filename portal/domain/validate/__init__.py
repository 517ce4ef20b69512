"""The publish-time validator: every rule a flow graph must satisfy, as pure code.

The editor runs it on every change and publishing runs it again. Rules, by DESIGN §6
(errors block publishing; warnings do not), each in the module named after it:

0. ``well_formed``: keys, labels, known vocabulary, references between elements,
   guards that parse and read only declared paths, floors in the base currency, size
   caps. Its errors stop the validator here.
1. ``initial_and_terminal``: exactly one draft (initial) state, a terminal one.
2. ``reachability``: every state reachable from the initial state; every non-terminal
   state has an exit; a terminal state may only be left into a dispute.
3. ``money_committed_once``: no accrual or payout state on a cycle that avoids the
   reversing states; no path crosses two accruals (or two payouts) without a reversal;
   the declared posting order holds.
4. ``grants_on_gates``: every grant-gated transition has a grant on its gate state.
5. ``reversals``: a rejection or cancellation leaving a state at or past an accrual
   reverses it.
6. ``advance_gates``: an advance gate needs exactly one target-gated sibling.
7. ``bands_reach_zero``: on each gated state the bands reach down to zero.

Beyond the numbered rules, reported as rule 8: ``comments_and_automatic_moves``
(rejections, cancellations and disputes require a comment; no automatic deadline moves
money) and ``dead_configuration`` (warnings for what can never take effect); and, given
the org chart by the caller, ``exclusive_staffing`` (a warning for each step exclusive
approval would leave with nobody for some requester).

The graph rules read one ``GraphIndex`` built once per run.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from itertools import chain
from operator import itemgetter

from portal.domain.actor import Role
from portal.domain.graph import GranteeKind, Graph
from portal.domain.validate import (
    advance_gates,
    bands_reach_zero,
    comments_and_automatic_moves,
    dead_configuration,
    grants_on_gates,
    initial_and_terminal,
    money_committed_once,
    reachability,
    reversals,
    well_formed,
)
from portal.domain.validate.graph_index import GraphIndex
from portal.domain.validate.violations import CODES, ERROR, WARNING, Violation, errors_in, violation
from portal.domain.validate.well_formed_grants import (
    ESCALATION_BOUND_RANGE,
    LEVELS_UP_RANGE,
    floor_precision,
)

__all__ = [
    "CODES",
    "ERROR",
    "ESCALATION_BOUND_RANGE",
    "LEVELS_UP_RANGE",
    "WARNING",
    "Violation",
    "errors_in",
    "floor_precision",
    "grantee_violations",
    "validate",
]


def validate(
    graph: Graph, *, base_currency: str, roles: Collection[str] = Role.ALL
) -> list[Violation]:
    """Every violation of the rules above, errors and warnings, in a stable order: rule
    by rule, each in drawing order."""
    graph = graph.normalised()
    found = well_formed.check_size(graph)
    if found:
        return found
    found = well_formed.check(graph, base_currency, roles)
    if errors_in(found):
        return found
    index = GraphIndex.of(graph)
    unanchored = initial_and_terminal.check(index)
    if unanchored:
        return found + unanchored  # the later rules start from the initial state
    return [
        *found,
        *reachability.check(index),
        *money_committed_once.check(index),
        *reversals.check(index),
        # Rules 4, 6 and 7 each look at the gate of every transition; what they find is
        # listed transition by transition, whichever rule found it.
        *_by_element(
            advance_gates.check(index), grants_on_gates.check(index), bands_reach_zero.check(index)
        ),
        *comments_and_automatic_moves.comments_required(index),
        # Both look at each state's deadline: listed state by state.
        *_by_element(
            comments_and_automatic_moves.automatic_moves_into_money(index),
            dead_configuration.deadlines_without_tasks(index),
        ),
        *dead_configuration.grants_unused_or_repeated(index),
    ]


def _by_element(*reports: Iterable[tuple[int, Violation]]) -> list[Violation]:
    """Violations of several rules that run over the same elements, in the elements'
    drawing order (and in the rules' order on one element)."""
    found = [*chain(*reports)]
    if len(found) > 1:
        found.sort(key=itemgetter(0))  # stable: one element's findings keep the rules' order
    return [v for _, v in found]


def grantee_violations(
    graph: Graph, *, active_members: Collection[int], active_positions: Collection[int]
) -> list[Violation]:
    """The rule-0 checks only the database can answer, given what it answered: a
    ``member`` or ``position`` grantee must exist in this organization and be active
    (a member of another organization is reported exactly like a missing one)."""
    out = []
    for i, gr in enumerate(graph.grants):
        ref, path = {"grant": i}, f"grants[{i}].grantee"
        grantee = gr.grantee
        if grantee.kind == GranteeKind.MEMBER and grantee.member is not None:
            if grantee.member not in active_members:
                out.append(
                    violation(
                        "grantee_member_unknown", ref, f"{path}.member", member=grantee.member
                    )
                )
        elif (
            grantee.kind == GranteeKind.POSITION
            and grantee.position is not None
            and grantee.position not in active_positions
        ):
            out.append(
                violation(
                    "grantee_position_unknown", ref, f"{path}.position", position=grantee.position
                )
            )
    return out
