"""The publish-time validator: every rule a flow graph must satisfy, as pure code.

The editor runs it on every change and publishing runs it again. Each violation names
its rule, a stable code, a severity, where it is (``ref`` for the editor to highlight,
``path`` for people) and the parameters of its message; messages are translated at the
edge from ``messages.MESSAGES``.

Rules (errors block publishing; warnings do not):

0. well-formed: keys, labels, known vocabulary, references between elements, guards
   that parse and read only declared paths, floors in the base currency, size caps.
   Rule-0 errors stop here: reachability over a graph whose transitions name missing
   states would bury the real defect under noise.
1. exactly one draft (initial) state and at least one terminal state.
2. every state reachable from the initial state; every non-terminal state has an exit;
   a terminal state may only be left into a dispute.
3. money is committed once: no accrual or payout state on a cycle that avoids the
   reversing states; no path crosses two accruals (or two payouts) without a reversal;
   the declared posting order holds.
4. every grant-gated transition has at least one grant on its gate state.
5. a rejection or cancellation leaving a state at or past an accrual reverses it.
6. an advance gate needs exactly one target-gated sibling.
7. on each gated state the bands reach down to zero.
8. a rejection, cancellation or dispute requires a comment; an automatic deadline may
   not fire a transition into an accrual or payout state (no money without a human);
   plus the warnings that catch dead configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from portal.domain import guards
from portal.domain.actor import Role
from portal.domain.graph import (
    KEY_PATTERN,
    MAX_CHOICES,
    MAX_FIELDS,
    MAX_GRANTS,
    MAX_LABEL_LENGTH,
    MAX_STATES,
    MAX_TRANSITIONS,
    Approval,
    BreachAction,
    CommentPolicy,
    FieldType,
    Gate,
    Grant,
    GranteeKind,
    Graph,
    Labels,
    OnVacancy,
    PostingOrder,
    StateRole,
    Transition,
    duration_minutes,
)
from portal.domain.locales import DEFAULT_LOCALE, SUPPORTED_LOCALES

ERROR = "error"
WARNING = "warning"

# Every code the validator itself emits: (rule, severity). Guard codes come from
# ``guards`` and are rule-0 errors too.
CODES: dict[str, tuple[int, str]] = {
    # rule 0 — well-formed
    "too_large": (0, ERROR),
    "flow_kind_invalid": (0, ERROR),
    "posting_order_unknown": (0, ERROR),
    "label_en_missing": (0, ERROR),
    "label_locale_unsupported": (0, ERROR),
    "label_too_long": (0, ERROR),
    "field_key_invalid": (0, ERROR),
    "field_key_duplicate": (0, ERROR),
    "field_type_unknown": (0, ERROR),
    "field_choices_missing": (0, ERROR),
    "field_choices_unexpected": (0, ERROR),
    "choice_key_invalid": (0, ERROR),
    "choice_key_duplicate": (0, ERROR),
    "state_key_invalid": (0, ERROR),
    "state_key_duplicate": (0, ERROR),
    "state_role_unknown": (0, ERROR),
    "approval_unsupported": (0, ERROR),
    "escalate_after_invalid": (0, ERROR),
    "deadline_after_invalid": (0, ERROR),
    "deadline_action_unknown": (0, ERROR),
    "deadline_transition_unknown": (0, ERROR),
    "deadline_transition_unexpected": (0, ERROR),
    "transition_key_invalid": (0, ERROR),
    "transition_state_unknown": (0, ERROR),
    "transition_self_loop": (0, ERROR),
    "transition_duplicate": (0, ERROR),
    "gate_unknown": (0, ERROR),
    "comment_policy_unknown": (0, ERROR),
    "grant_scope_invalid": (0, ERROR),
    "grant_state_unknown": (0, ERROR),
    "grantee_kind_unknown": (0, ERROR),
    "grantee_ref_invalid": (0, ERROR),
    "levels_up_invalid": (0, ERROR),
    "grantee_role_unknown": (0, ERROR),
    "grantee_member_unknown": (0, ERROR),  # database-aware: see ``grantee_violations``
    "grantee_position_unknown": (0, ERROR),  # database-aware
    "floor_negative": (0, ERROR),
    "floor_currency_mismatch": (0, ERROR),
    "floor_currency_without_amount": (0, ERROR),
    "on_vacancy_unknown": (0, ERROR),
    "escalation_bound_invalid": (0, ERROR),
    # rule 1
    "initial_state_count": (1, ERROR),
    "no_terminal_state": (1, ERROR),
    # rule 2
    "state_unreachable": (2, ERROR),
    "state_no_exit": (2, ERROR),
    "terminal_exit_not_dispute": (2, ERROR),
    # rule 3
    "accrual_on_cycle": (3, ERROR),
    "payout_on_cycle": (3, ERROR),
    "accrual_repeated": (3, ERROR),
    "payout_repeated": (3, ERROR),
    "payout_before_accrual": (3, ERROR),
    "accrual_before_payout": (3, ERROR),
    "payout_without_accrual": (3, ERROR),
    # rule 4
    "gate_without_grant": (4, ERROR),
    # rule 5
    "reversal_missing": (5, ERROR),
    "reverses_unexpected": (5, WARNING),
    # rule 6
    "advance_sibling_count": (6, ERROR),
    # rule 7
    "bands_do_not_reach_zero": (7, ERROR),
    # rule 8
    "comment_not_required": (8, ERROR),
    "auto_transition_posts": (8, ERROR),
    "grant_unused": (8, WARNING),
    "grant_duplicate": (8, WARNING),
    "deadline_without_tasks": (8, WARNING),
}

LEVELS_UP_RANGE = range(1, 10)
# The one reference each grantee kind needs (and no other).
_GRANTEE_REFERENCE = {
    GranteeKind.MEMBER: "member",
    GranteeKind.POSITION: "position",
    GranteeKind.LEVELS_UP: "levels",
    GranteeKind.ROLE: "role",
    GranteeKind.UNIT_HEAD: "walk_up",
    GranteeKind.SUPERIOR: None,
}
_NEEDS_COMMENT = (*StateRole.REVERSING, StateRole.DISPUTE)
ESCALATION_BOUND_RANGE = range(1, 11)


@dataclass(frozen=True)
class Violation:
    rule: int
    code: str
    severity: str
    # What the editor highlights: {"state": key}, {"transition": index}, {"grant": index},
    # {"field": key}, or {} for the flow as a whole.
    ref: Mapping[str, str | int] = field(default_factory=dict)
    # Where, for people and for import errors: "transitions[3].guard".
    path: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_json(self, message: str) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "code": self.code,
            "severity": self.severity,
            "message": message,
            "ref": dict(self.ref),
            "path": self.path,
        }


def errors_in(violations: Iterable[Violation]) -> list[Violation]:
    return [v for v in violations if v.is_error]


def _describe(t: Transition) -> str:
    return f"{t.key} ({t.from_state} → {t.to_state})"


class _Checker:
    def __init__(self, graph: Graph, base_currency: str, roles: Collection[str]) -> None:
        self.g = graph.normalised()
        self.base_currency = base_currency
        self.roles = roles
        self.out: list[Violation] = []
        self.index: dict[str, int] = {}  # state key -> position of its first occurrence

    def add(
        self,
        code: str,
        ref: Mapping[str, str | int] | None = None,
        path: str = "",
        **params: Any,
    ) -> None:
        self.out.append(_violation(code, ref or {}, path, **params))

    def add_guard(
        self, code: str, ref: Mapping[str, int], path: str, params: Mapping[str, Any]
    ) -> None:
        self.out.append(Violation(0, code, ERROR, dict(ref), path, dict(params)))

    def has_errors(self) -> bool:
        return any(v.is_error for v in self.out)

    # --- rule 0 --------------------------------------------------------------------

    def labels(self, labels: Labels, ref: Mapping[str, str | int], path: str) -> None:
        # Paths are built only for a violation: this runs for every element on every change.
        english = labels.get(DEFAULT_LOCALE)
        if not english or english.isspace():
            self.add("label_en_missing", ref, f"{path}.labels" if path else "labels")
        for locale, text in labels.items():
            if locale not in SUPPORTED_LOCALES:
                where = f"{path}.labels.{locale}" if path else f"labels.{locale}"
                self.add("label_locale_unsupported", ref, where, locale=locale)
            elif len(text) > MAX_LABEL_LENGTH:
                where = f"{path}.labels.{locale}" if path else f"labels.{locale}"
                self.add("label_too_long", ref, where, limit=MAX_LABEL_LENGTH)

    def too_large(self) -> bool:
        g = self.g
        choices = max((len(f.choices) for f in g.fields), default=0)
        if (
            len(g.states) > MAX_STATES
            or len(g.transitions) > MAX_TRANSITIONS
            or len(g.grants) > MAX_GRANTS
            or len(g.fields) > MAX_FIELDS
            or choices > MAX_CHOICES
        ):
            self.add(
                "too_large",
                states=MAX_STATES,
                transitions=MAX_TRANSITIONS,
                grants=MAX_GRANTS,
                fields=MAX_FIELDS,
            )
            return True
        return False

    def well_formed(self) -> None:
        g = self.g
        if not KEY_PATTERN.match(g.kind):
            self.add("flow_kind_invalid", {}, "kind", kind=g.kind[:64])
        if g.posting_order not in PostingOrder.ALL:
            self.add("posting_order_unknown", {}, "posting_order", value=str(g.posting_order)[:64])
        self.labels(g.labels, {}, "")
        self.fields()
        self.states()
        self.transitions()
        self.grants()

    def fields(self) -> None:
        seen: set[str] = set()
        for i, f in enumerate(self.g.fields):
            ref, path = {"field": f.key}, f"fields[{i}]"
            if not KEY_PATTERN.match(f.key):
                self.add("field_key_invalid", ref, f"{path}.key", key=f.key[:64])
            elif f.key in seen:
                self.add("field_key_duplicate", ref, f"{path}.key", key=f.key)
            seen.add(f.key)
            if f.type not in FieldType.ALL:
                self.add("field_type_unknown", ref, f"{path}.type", type=f.type[:64])
            elif f.type == FieldType.CHOICE and not f.choices:
                self.add("field_choices_missing", ref, f"{path}.choices", key=f.key)
            elif f.type != FieldType.CHOICE and f.choices:
                self.add("field_choices_unexpected", ref, f"{path}.choices", key=f.key)
            self.labels(f.labels, ref, path)
            choice_keys: set[str] = set()
            for j, c in enumerate(f.choices):
                choice_path = f"{path}.choices[{j}]"
                if not KEY_PATTERN.match(c.key):
                    self.add("choice_key_invalid", ref, f"{choice_path}.key", key=c.key[:64])
                elif c.key in choice_keys:
                    self.add("choice_key_duplicate", ref, f"{choice_path}.key", key=c.key)
                choice_keys.add(c.key)
                self.labels(c.labels, ref, choice_path)

    def states(self) -> None:
        for i, s in enumerate(self.g.states):
            ref, path = {"state": s.key}, f"states[{i}]"
            if not KEY_PATTERN.match(s.key):
                self.add("state_key_invalid", ref, f"{path}.key", key=s.key[:64])
            elif s.key in self.index:
                self.add("state_key_duplicate", ref, f"{path}.key", key=s.key)
            else:
                self.index[s.key] = i
            if s.role not in StateRole.ALL:
                self.add("state_role_unknown", ref, f"{path}.role", role=s.role[:64])
            if s.approval not in Approval.ALL:
                self.add(
                    "approval_unsupported", ref, f"{path}.approval", approval=str(s.approval)[:64]
                )
            if s.escalate_after is not None and duration_minutes(s.escalate_after) is None:
                self.add(
                    "escalate_after_invalid",
                    ref,
                    f"{path}.escalate_after",
                    value=s.escalate_after[:64],
                )
            self.labels(s.labels, ref, path)

    def deadlines(self) -> None:
        # After the transitions are known: an automatic deadline names one of them.
        for i, s in enumerate(self.g.states):
            d = s.deadline
            if d is None:
                continue
            ref, path = {"state": s.key}, f"states[{i}].deadline"
            if duration_minutes(d.after) is None:
                self.add("deadline_after_invalid", ref, f"{path}.after", value=d.after[:64])
            if d.on_breach not in BreachAction.ALL:
                self.add(
                    "deadline_action_unknown", ref, f"{path}.on_breach", action=d.on_breach[:64]
                )
            elif d.on_breach == BreachAction.AUTO:
                if d.transition is None or self.g.transition(s.key, d.transition) is None:
                    self.add(
                        "deadline_transition_unknown",
                        ref,
                        f"{path}.transition",
                        state=s.key,
                        transition=(d.transition or "")[:64],
                    )
            elif d.transition is not None:
                self.add(
                    "deadline_transition_unexpected", ref, f"{path}.transition", action=d.on_breach
                )

    def transitions(self) -> None:
        seen: set[tuple[str, str]] = set()
        paths = frozenset(guards.known_paths((f.key, f.type) for f in self.g.fields).items())
        for i, t in enumerate(self.g.transitions):
            ref, path = {"transition": i}, f"transitions[{i}]"
            if not KEY_PATTERN.match(t.key):
                self.add("transition_key_invalid", ref, f"{path}.key", key=t.key[:64])
            for end, key in (("from", t.from_state), ("to", t.to_state)):
                if key not in self.index:
                    self.add("transition_state_unknown", ref, f"{path}.{end}", state=key[:64])
            if t.from_state == t.to_state:
                self.add("transition_self_loop", ref, path, state=t.from_state[:64])
            if (t.from_state, t.key) in seen:
                self.add("transition_duplicate", ref, f"{path}.key", transition=_describe(t))
            seen.add((t.from_state, t.key))
            if t.gate not in Gate.ALL:
                self.add("gate_unknown", ref, f"{path}.gate", gate=t.gate[:64])
            if t.comment not in CommentPolicy.ALL:
                self.add(
                    "comment_policy_unknown", ref, f"{path}.comment", value=str(t.comment)[:64]
                )
            self.labels(t.labels, ref, path)
            if t.guard is not None:
                self.guard(t.guard.expression, paths, ref, f"{path}.guard.expression")
                self.labels(t.guard.message, ref, f"{path}.guard.message")
        self.deadlines()

    def guard(
        self,
        expression: str,
        paths: frozenset[tuple[str, str]],
        ref: Mapping[str, int],
        path: str,
    ) -> None:
        for code, params in _guard_problems(expression, paths):
            self.add_guard(code, ref, path, params)

    def grants(self) -> None:
        for i, gr in enumerate(self.g.grants):
            ref, path = {"grant": i}, f"grants[{i}]"
            if gr.all_states == (gr.state is not None):
                self.add("grant_scope_invalid", ref, f"{path}.state")
            elif gr.state is not None and gr.state not in self.index:
                self.add("grant_state_unknown", ref, f"{path}.state", state=gr.state[:64])
            self.grantee(gr.grantee, ref, f"{path}.grantee")
            if gr.min_amount is not None:
                if gr.min_amount < 0:
                    self.add("floor_negative", ref, f"{path}.min_amount", amount=str(gr.min_amount))
                if gr.currency != self.base_currency:
                    self.add(
                        "floor_currency_mismatch",
                        ref,
                        f"{path}.currency",
                        currency=(gr.currency or "")[:8],
                        base=self.base_currency,
                    )
            elif gr.currency is not None:
                self.add("floor_currency_without_amount", ref, f"{path}.currency")
            if gr.on_vacancy not in OnVacancy.ALL:
                self.add(
                    "on_vacancy_unknown", ref, f"{path}.on_vacancy", value=str(gr.on_vacancy)[:64]
                )
            if gr.max_escalation_levels not in ESCALATION_BOUND_RANGE:
                self.add(
                    "escalation_bound_invalid",
                    ref,
                    f"{path}.max_escalation_levels",
                    low=ESCALATION_BOUND_RANGE.start,
                    high=ESCALATION_BOUND_RANGE.stop - 1,
                )

    def grantee(self, grantee: Any, ref: Mapping[str, int], path: str) -> None:
        needs = _GRANTEE_REFERENCE
        if grantee.kind not in needs:
            self.add("grantee_kind_unknown", ref, f"{path}.kind", kind=grantee.kind[:64])
            return
        wanted = needs[grantee.kind]
        given = {
            name
            for name in ("member", "position", "levels", "role", "walk_up")
            if getattr(grantee, name) is not None
        }
        if given != ({wanted} if wanted else set()):
            self.add("grantee_ref_invalid", ref, path, kind=grantee.kind)
        elif grantee.kind == GranteeKind.LEVELS_UP and grantee.levels not in LEVELS_UP_RANGE:
            self.add(
                "levels_up_invalid",
                ref,
                f"{path}.levels",
                low=LEVELS_UP_RANGE.start,
                high=LEVELS_UP_RANGE.stop - 1,
            )
        elif grantee.kind == GranteeKind.ROLE and grantee.role not in self.roles:
            self.add("grantee_role_unknown", ref, f"{path}.role", role=str(grantee.role)[:64])

    # --- the graph rules -----------------------------------------------------------

    def build(self) -> None:
        """Indexes the graph rules share, so no rule is quadratic in the transitions."""
        n = len(self.g.states)
        self.adj: list[list[int]] = [[] for _ in range(n)]
        self.forward: dict[str, list[str]] = {}  # state -> targets of its target-gated exits
        self.gated_exits: set[str] = (
            set()
        )  # states with an exit someone other than the requester takes
        for t in self.g.transitions:
            self.adj[self.index[t.from_state]].append(self.index[t.to_state])
            if t.gate == Gate.TARGET:
                self.forward.setdefault(t.from_state, []).append(t.to_state)
            if t.gate != Gate.REQUESTER:
                self.gated_exits.add(t.from_state)
        # A state's own grants first, then the all-states ones.
        self.grants_by_state: dict[str, list[Grant]] = {key: [] for key in self.index}
        for gr in self.g.grants:
            if gr.state is not None:
                self.grants_by_state[gr.state].append(gr)
        everywhere = [gr for gr in self.g.grants if gr.all_states]
        for grants in self.grants_by_state.values():
            grants.extend(everywhere)

    def gate_state(self, t: Transition) -> str | None:
        """``Graph.gate_state`` over the prebuilt index."""
        if t.gate == Gate.TARGET:
            return t.to_state
        if t.gate == Gate.SOURCE:
            return t.from_state
        if t.gate == Gate.ADVANCE:
            forward = self.forward.get(t.from_state, [])
            return forward[0] if len(forward) == 1 else None
        return None

    def role(self, i: int) -> str:
        return self.g.states[i].role

    def reversing(self, i: int) -> bool:
        return self.role(i) in StateRole.REVERSING

    def reach(self, starts: Iterable[int], blocked: Callable[[int], bool]) -> list[bool]:
        """Which states can be reached from ``starts`` without entering a blocked one."""
        seen = [False] * len(self.g.states)
        stack = []
        for s in starts:
            if not blocked(s) and not seen[s]:
                seen[s] = True
                stack.append(s)
        while stack:
            for m in self.adj[stack.pop()]:
                if not seen[m] and not blocked(m):
                    seen[m] = True
                    stack.append(m)
        return seen

    def rule1(self) -> bool:
        drafts = [i for i, s in enumerate(self.g.states) if s.role == StateRole.DRAFT]
        ok = True
        if len(drafts) != 1:
            self.add("initial_state_count", {}, "states", count=len(drafts))
            ok = False
        if not any(s.terminal for s in self.g.states):
            self.add("no_terminal_state", {}, "states")
            ok = False
        if ok:
            self.root = drafts[0]
        return ok

    def rule2(self) -> None:
        seen = self.reach([self.root], lambda i: False)
        for i, s in enumerate(self.g.states):
            ref, path = {"state": s.key}, f"states[{i}]"
            if not seen[i]:
                self.add("state_unreachable", ref, path, state=s.key)
            if not s.terminal and not self.adj[i]:
                self.add("state_no_exit", ref, path, state=s.key)
        for i, t in enumerate(self.g.transitions):
            source = self.g.states[self.index[t.from_state]]
            target = self.g.states[self.index[t.to_state]]
            if source.terminal and target.role != StateRole.DISPUTE:
                self.add(
                    "terminal_exit_not_dispute",
                    {"transition": i},
                    f"transitions[{i}]",
                    state=source.key,
                )

    def components(self, skip: Callable[[int], bool]) -> list[int]:
        """Strongly connected components (Tarjan) of the graph without the skipped
        states; returns each state's component id (-1 for a skipped state)."""
        n = len(self.g.states)
        comp = [-1] * n
        index = [-1] * n
        low = [0] * n
        on_stack = [False] * n
        stack: list[int] = []
        counter = 0
        next_comp = 0

        def visit(v: int) -> None:  # recursion depth is bounded by MAX_STATES
            nonlocal counter, next_comp
            index[v] = low[v] = counter
            counter += 1
            stack.append(v)
            on_stack[v] = True
            for w in self.adj[v]:
                if skip(w):
                    continue
                if index[w] < 0:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = next_comp
                    if w == v:
                        break
                next_comp += 1

        for v in range(n):
            if not skip(v) and index[v] < 0:
                visit(v)
        return comp

    def rule3(self) -> None:
        n = len(self.g.states)
        comp = self.components(self.reversing)
        size: dict[int, int] = {}
        for c in comp:
            size[c] = size.get(c, 0) + 1
        on_cycle = False
        for i, s in enumerate(self.g.states):
            if comp[i] < 0 or s.role not in StateRole.POSTING:
                continue
            # A self-loop is refused by rule 0, so a cycle means a component of two or more.
            if size[comp[i]] > 1:
                self.add(f"{s.role}_on_cycle", {"state": s.key}, f"states[{i}]", state=s.key)
                on_cycle = True
        if on_cycle:
            return  # the path counts below assume the posting states are acyclic

        # Passing through a reversing state undoes what was posted, so counting starts
        # again at the initial state and right after every reversing state.
        starts = [self.root]
        for i in range(n):
            if self.reversing(i):
                starts.extend(m for m in self.adj[i] if not self.reversing(m))

        # Longest count of accrual (payout) states on any path, over the condensation:
        # components are a DAG, and a posting state is a component of its own.
        comp_adj: dict[int, set[int]] = {}
        for v in range(n):
            if comp[v] < 0:
                continue
            for w in self.adj[v]:
                if comp[w] >= 0 and comp[w] != comp[v]:
                    comp_adj.setdefault(comp[v], set()).add(comp[w])
        for role in StateRole.POSTING:
            weight: dict[int, int] = {}
            for i in range(n):
                if comp[i] >= 0 and self.role(i) == role:
                    weight[comp[i]] = weight.get(comp[i], 0) + 1
            memo: dict[int, int] = {}
            for s in starts:
                if comp[s] >= 0 and _longest(comp[s], comp_adj, weight, memo) > 1:
                    key = self.g.states[s].key
                    self.add(f"{role}_repeated", {"state": key}, f"states[{s}]", state=key)
                    break

        self.posting_order(starts)

    def posting_order(self, starts: list[int]) -> None:
        n = len(self.g.states)

        def accrual(i: int) -> bool:
            return self.role(i) == StateRole.ACCRUAL

        for p in range(n):
            if self.role(p) != StateRole.PAYOUT:
                continue
            key = self.g.states[p].key
            ref, path = {"state": key}, f"states[{p}]"
            if self.g.posting_order == PostingOrder.ACCRUAL_FIRST:
                if self.reach(starts, lambda i: self.reversing(i) or accrual(i))[p]:
                    self.add("payout_before_accrual", ref, path, state=key)
            else:
                after_accrual = [m for i in range(n) if accrual(i) for m in self.adj[i]]
                if self.reach(after_accrual, self.reversing)[p]:
                    self.add("accrual_before_payout", ref, path, state=key)
                after = self.reach(self.adj[p], lambda i: self.reversing(i) or accrual(i))
                for i, s in enumerate(self.g.states):
                    if s.terminal and (after[i] or i == p):
                        self.add("payout_without_accrual", ref, path, state=key, terminal=s.key)
                        break

    def rule5(self) -> None:
        accruals = [i for i in range(len(self.g.states)) if self.role(i) == StateRole.ACCRUAL]
        past = self.reach(accruals, self.reversing)
        for i, t in enumerate(self.g.transitions):
            target = self.g.states[self.index[t.to_state]]
            ref, path = {"transition": i}, f"transitions[{i}]"
            if target.role in StateRole.REVERSING:
                if past[self.index[t.from_state]] and not t.reverses:
                    self.add("reversal_missing", ref, f"{path}.reverses", transition=_describe(t))
            elif t.reverses:
                self.add("reverses_unexpected", ref, f"{path}.reverses", transition=_describe(t))

    def rules_4_6_7(self) -> None:
        checked: set[str] = set()
        for i, t in enumerate(self.g.transitions):
            ref, path = {"transition": i}, f"transitions[{i}]"
            if t.gate == Gate.ADVANCE:
                forward = len(self.forward.get(t.from_state, ()))
                if forward != 1:
                    self.add(
                        "advance_sibling_count",
                        ref,
                        f"{path}.gate",
                        state=t.from_state,
                        count=forward,
                    )
                    continue
            state = self.gate_state(t)
            if state is None:
                continue
            grants = self.grants_by_state[state]
            if not grants:
                self.add(
                    "gate_without_grant", ref, f"{path}.gate", transition=_describe(t), state=state
                )
                continue
            if state in checked:
                continue
            checked.add(state)
            if not any(g.floor == 0 for g in grants):
                self.add(
                    "bands_do_not_reach_zero",
                    {"state": state},
                    f"states[{self.index[state]}]",
                    state=state,
                )

    def rule8(self) -> None:
        g = self.g
        for i, t in enumerate(g.transitions):
            target = g.states[self.index[t.to_state]]
            if target.role in _NEEDS_COMMENT and t.comment != CommentPolicy.REQUIRED:
                self.add(
                    "comment_not_required",
                    {"transition": i},
                    f"transitions[{i}].comment",
                    transition=_describe(t),
                )
        gate_states = {self.gate_state(t) for t in g.transitions} - {None}
        for i, s in enumerate(g.states):
            d = s.deadline
            if d is not None and d.on_breach == BreachAction.AUTO and d.transition:
                fired = g.transition(s.key, d.transition)
                if (
                    fired is not None
                    and g.states[self.index[fired.to_state]].role in StateRole.POSTING
                ):
                    self.add(
                        "auto_transition_posts",
                        {"state": s.key},
                        f"states[{i}].deadline.transition",
                        transition=_describe(fired),
                    )
            if (d is not None or s.escalate_after is not None) and s.key not in self.gated_exits:
                self.add("deadline_without_tasks", {"state": s.key}, f"states[{i}]", state=s.key)
        seen_grants: dict[str | None, list[Grant]] = {}
        for i, gr in enumerate(g.grants):
            ref, path = {"grant": i}, f"grants[{i}]"
            if gr.state is not None and gr.state not in gate_states:
                self.add("grant_unused", ref, path, state=gr.state)
            # Compared within one state only: cheap, and duplicates can only be there.
            same_state = seen_grants.setdefault(gr.state, [])
            if gr in same_state:
                self.add("grant_duplicate", ref, path)
            same_state.append(gr)

    def run(self) -> list[Violation]:
        if self.too_large():
            return self.out
        self.well_formed()
        if self.has_errors():
            return self.out
        self.build()
        if not self.rule1():
            return self.out
        self.rule2()
        self.rule3()
        self.rule5()
        self.rules_4_6_7()
        self.rule8()
        return self.out


@lru_cache(maxsize=4096)
def _guard_problems(
    expression: str, paths: frozenset[tuple[str, str]]
) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """Why a guard is unusable: its syntax error, or what the static check finds.
    Cached: the editor revalidates on every change and guards rarely change."""
    try:
        parsed = guards.parse(expression)
    except guards.GuardSyntaxError as exc:
        return ((exc.code, dict(exc.params)),)
    return tuple(
        (p.code, {**p.params, "column": p.column}) for p in guards.check(parsed, dict(paths))
    )


def _longest(
    c: int, adj: Mapping[int, set[int]], weight: Mapping[int, int], memo: dict[int, int]
) -> int:
    """The most weight on any path from component ``c`` of a DAG (memoised; the depth
    is bounded by MAX_STATES)."""
    if c not in memo:
        memo[c] = weight.get(c, 0) + max(
            (_longest(d, adj, weight, memo) for d in adj.get(c, ())), default=0
        )
    return memo[c]


def validate(
    graph: Graph, *, base_currency: str, roles: Collection[str] = Role.ALL
) -> list[Violation]:
    """Every violation of the rules above, errors and warnings, in a stable order."""
    return _Checker(graph, base_currency, roles).run()


def _violation(code: str, ref: Mapping[str, str | int], path: str, **params: Any) -> Violation:
    rule, severity = CODES[code]
    return Violation(rule, code, severity, dict(ref), path, params)


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
                    _violation(
                        "grantee_member_unknown", ref, f"{path}.member", member=grantee.member
                    )
                )
        elif (
            grantee.kind == GranteeKind.POSITION
            and grantee.position is not None
            and grantee.position not in active_positions
        ):
            out.append(
                _violation(
                    "grantee_position_unknown", ref, f"{path}.position", position=grantee.position
                )
            )
    return out
