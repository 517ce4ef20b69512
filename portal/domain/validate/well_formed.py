"""Rule 0, well-formed: keys, labels, known vocabulary, references between elements,
guards that parse and read only declared paths, floors in the base currency, size caps.

Its errors stop the validator before the graph rules: reachability over a graph whose
transitions name missing states would bury the real defect under noise.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import Decimal
from functools import lru_cache

from portal.domain import guards
from portal.domain.durations import duration_minutes
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
    Grantee,
    GranteeKind,
    Graph,
    OnVacancy,
    PostingOrder,
    StateRole,
)
from portal.domain.labels import Labels
from portal.domain.locales import DEFAULT_LOCALE, SUPPORTED_LOCALES
from portal.domain.validate.violations import (
    ERROR,
    Params,
    Ref,
    Rule,
    Violation,
    describe,
    violation,
)

LEVELS_UP_RANGE = range(1, 10)
ESCALATION_BOUND_RANGE = range(1, 11)
# The one reference each grantee kind needs (and no other).
_GRANTEE_REFERENCE = {
    GranteeKind.MEMBER: "member",
    GranteeKind.POSITION: "position",
    GranteeKind.LEVELS_UP: "levels",
    GranteeKind.ROLE: "role",
    GranteeKind.UNIT_HEAD: "walk_up",
    GranteeKind.SUPERIOR: None,
}
# The references an admin chooses after the kind (walk_up has a default).
_CHOSEN = ("member", "position", "levels", "role")


def check_size(graph: Graph) -> list[Violation]:
    """One ``too_large`` when the graph exceeds a cap: nothing else is worth checking."""
    choices = max((len(f.choices) for f in graph.fields), default=0)
    if (
        len(graph.states) > MAX_STATES
        or len(graph.transitions) > MAX_TRANSITIONS
        or len(graph.grants) > MAX_GRANTS
        or len(graph.fields) > MAX_FIELDS
        or choices > MAX_CHOICES
    ):
        return [
            violation(
                "too_large",
                {},
                "",
                states=MAX_STATES,
                transitions=MAX_TRANSITIONS,
                grants=MAX_GRANTS,
                fields=MAX_FIELDS,
            )
        ]
    return []


def check(graph: Graph, base_currency: str, roles: Collection[str]) -> list[Violation]:
    """Every rule-0 violation of a (normalised) graph within the size caps."""
    out: list[Violation] = []
    if not KEY_PATTERN.fullmatch(graph.kind):
        out.append(violation("flow_kind_invalid", {}, "kind", kind=graph.kind[:64]))
    if graph.posting_order not in PostingOrder.ALL:
        value = str(graph.posting_order)[:64]
        out.append(violation("posting_order_unknown", {}, "posting_order", value=value))
    _labels(graph.labels, {}, "", out)
    _fields(graph, out)
    known = _states(graph, out)
    _transitions(graph, known, out)
    _deadlines(graph, out)
    _grants(graph, known, base_currency, roles, out)
    return out


def _labels(labels: Labels, ref: Ref, path: str, out: list[Violation]) -> None:
    # Paths are built only for a violation: this runs for every element on every change.
    english = labels.get(DEFAULT_LOCALE)
    if not english or english.isspace():
        out.append(violation("label_en_missing", ref, f"{path}.labels" if path else "labels"))
    for locale, text in labels.items():
        if locale not in SUPPORTED_LOCALES:
            where = f"{path}.labels.{locale}" if path else f"labels.{locale}"
            out.append(violation("label_locale_unsupported", ref, where, locale=locale))
        elif len(text) > MAX_LABEL_LENGTH:
            where = f"{path}.labels.{locale}" if path else f"labels.{locale}"
            out.append(violation("label_too_long", ref, where, limit=MAX_LABEL_LENGTH))


def _fields(graph: Graph, out: list[Violation]) -> None:
    seen: set[str] = set()
    for i, f in enumerate(graph.fields):
        ref, path = {"field": f.key}, f"fields[{i}]"
        if not KEY_PATTERN.fullmatch(f.key):
            out.append(violation("field_key_invalid", ref, f"{path}.key", key=f.key[:64]))
        elif f.key in seen:
            out.append(violation("field_key_duplicate", ref, f"{path}.key", key=f.key))
        seen.add(f.key)
        if f.type not in FieldType.ALL:
            out.append(violation("field_type_unknown", ref, f"{path}.type", type=f.type[:64]))
        elif f.type == FieldType.CHOICE and not f.choices:
            out.append(violation("field_choices_missing", ref, f"{path}.choices", key=f.key))
        elif f.type != FieldType.CHOICE and f.choices:
            out.append(violation("field_choices_unexpected", ref, f"{path}.choices", key=f.key))
        _labels(f.labels, ref, path, out)
        choice_keys: set[str] = set()
        for j, c in enumerate(f.choices):
            where = f"{path}.choices[{j}]"
            if not KEY_PATTERN.fullmatch(c.key):
                out.append(violation("choice_key_invalid", ref, f"{where}.key", key=c.key[:64]))
            elif c.key in choice_keys:
                out.append(violation("choice_key_duplicate", ref, f"{where}.key", key=c.key))
            choice_keys.add(c.key)
            _labels(c.labels, ref, where, out)


def _states(graph: Graph, out: list[Violation]) -> set[str]:
    """Checks the states; returns the keys a transition or a grant may name (well-formed,
    first of their name)."""
    known: set[str] = set()
    for i, s in enumerate(graph.states):
        ref, path = {"state": s.key}, f"states[{i}]"
        if not KEY_PATTERN.fullmatch(s.key):
            out.append(violation("state_key_invalid", ref, f"{path}.key", key=s.key[:64]))
        elif s.key in known:
            out.append(violation("state_key_duplicate", ref, f"{path}.key", key=s.key))
        else:
            known.add(s.key)
        if s.role not in StateRole.ALL:
            out.append(violation("state_role_unknown", ref, f"{path}.role", role=s.role[:64]))
        if s.approval not in Approval.ALL:
            approval = str(s.approval)[:64]
            out.append(
                violation("approval_unsupported", ref, f"{path}.approval", approval=approval)
            )
        if s.escalate_after is not None and duration_minutes(s.escalate_after) is None:
            out.append(
                violation(
                    "escalate_after_invalid",
                    ref,
                    f"{path}.escalate_after",
                    value=s.escalate_after[:64],
                )
            )
        _labels(s.labels, ref, path, out)
    return known


def _transitions(graph: Graph, known: set[str], out: list[Violation]) -> None:
    seen: set[tuple[str, str]] = set()
    paths = frozenset(guards.known_paths((f.key, f.type) for f in graph.fields).items())
    for i, t in enumerate(graph.transitions):
        ref, path = {"transition": i}, f"transitions[{i}]"
        if not KEY_PATTERN.fullmatch(t.key):
            out.append(violation("transition_key_invalid", ref, f"{path}.key", key=t.key[:64]))
        for end, key in (("from", t.from_state), ("to", t.to_state)):
            if key not in known:
                out.append(
                    violation("transition_state_unknown", ref, f"{path}.{end}", state=key[:64])
                )
        if t.from_state == t.to_state:
            out.append(violation("transition_self_loop", ref, path, state=t.from_state[:64]))
        if (t.from_state, t.key) in seen:
            out.append(
                violation("transition_duplicate", ref, f"{path}.key", transition=describe(t))
            )
        seen.add((t.from_state, t.key))
        if t.gate not in Gate.ALL:
            out.append(violation("gate_unknown", ref, f"{path}.gate", gate=t.gate[:64]))
        if t.comment not in CommentPolicy.ALL:
            value = str(t.comment)[:64]
            out.append(violation("comment_policy_unknown", ref, f"{path}.comment", value=value))
        _labels(t.labels, ref, path, out)
        if t.guard is not None:
            where = f"{path}.guard.expression"
            for code, params in _guard_problems(t.guard.expression, paths):
                # Guard codes are the guard language's own, outside CODES.
                # Copied: the cache hands the same parameters to every run.
                out.append(Violation(Rule.WELL_FORMED, code, ERROR, dict(ref), where, dict(params)))
            _labels(t.guard.message, ref, f"{path}.guard.message", out)


@lru_cache(maxsize=4096)
def _guard_problems(
    expression: str, paths: frozenset[tuple[str, str]]
) -> tuple[tuple[str, Params], ...]:
    """Why a guard is unusable: its syntax error, or what the static check finds.
    Cached: the editor revalidates on every change and guards rarely change."""
    try:
        parsed = guards.parse(expression)
    except guards.GuardSyntaxError as exc:
        return ((exc.code, dict(exc.params)),)
    return tuple((p.code, p.message_params) for p in guards.check(parsed, dict(paths)))


def _deadlines(graph: Graph, out: list[Violation]) -> None:
    # After the transitions are known: an automatic deadline names one of them.
    for i, s in enumerate(graph.states):
        d = s.deadline
        if d is None:
            continue
        ref, path = {"state": s.key}, f"states[{i}].deadline"
        if duration_minutes(d.after) is None:
            out.append(
                violation("deadline_after_invalid", ref, f"{path}.after", value=d.after[:64])
            )
        if d.on_breach not in BreachAction.ALL:
            action = d.on_breach[:64]
            out.append(
                violation("deadline_action_unknown", ref, f"{path}.on_breach", action=action)
            )
        elif d.on_breach == BreachAction.AUTO:
            if d.transition is None or graph.transition(s.key, d.transition) is None:
                out.append(
                    violation(
                        "deadline_transition_unknown",
                        ref,
                        f"{path}.transition",
                        state=s.key,
                        transition=(d.transition or "")[:64],
                    )
                )
        elif d.transition is not None:
            out.append(
                violation(
                    "deadline_transition_unexpected",
                    ref,
                    f"{path}.transition",
                    action=d.on_breach,
                )
            )


def _grants(
    graph: Graph, known: set[str], base_currency: str, roles: Collection[str], out: list[Violation]
) -> None:
    for i, gr in enumerate(graph.grants):
        ref, path = {"grant": i}, f"grants[{i}]"
        if gr.all_states == (gr.state is not None):
            out.append(violation("grant_scope_invalid", ref, f"{path}.state"))
        elif gr.state is not None and gr.state not in known:
            out.append(violation("grant_state_unknown", ref, f"{path}.state", state=gr.state[:64]))
        _grantee(gr.grantee, roles, ref, f"{path}.grantee", out)
        if gr.min_amount is not None:
            if gr.min_amount < 0:
                amount = str(gr.min_amount)
                out.append(violation("floor_negative", ref, f"{path}.min_amount", amount=amount))
            if gr.currency is None:  # an amount with no currency: which one is meant?
                where = f"{path}.currency"
                out.append(violation("floor_currency_missing", ref, where, base=base_currency))
            elif gr.currency != base_currency:
                out.append(
                    violation(
                        "floor_currency_mismatch",
                        ref,
                        f"{path}.currency",
                        currency=(gr.currency or "")[:8],
                        base=base_currency,
                    )
                )
        elif gr.currency is not None:
            out.append(violation("floor_currency_without_amount", ref, f"{path}.currency"))
        if gr.on_vacancy not in OnVacancy.ALL:
            value = str(gr.on_vacancy)[:64]
            out.append(violation("on_vacancy_unknown", ref, f"{path}.on_vacancy", value=value))
        if gr.max_escalation_levels not in ESCALATION_BOUND_RANGE:
            out.append(
                violation(
                    "escalation_bound_invalid",
                    ref,
                    f"{path}.max_escalation_levels",
                    low=ESCALATION_BOUND_RANGE.start,
                    high=ESCALATION_BOUND_RANGE.stop - 1,
                )
            )


def _grantee(
    grantee: Grantee,
    roles: Collection[str],
    ref: Mapping[str, int],
    path: str,
    out: list[Violation],
) -> None:
    if not grantee.kind:  # a grant just added: who decides is still to be chosen
        out.append(violation("grantee_kind_missing", ref, f"{path}.kind"))
        return
    if grantee.kind not in _GRANTEE_REFERENCE:
        out.append(violation("grantee_kind_unknown", ref, f"{path}.kind", kind=grantee.kind[:64]))
        return
    wanted = _GRANTEE_REFERENCE[grantee.kind]
    given = {
        name
        for name, value in (
            ("member", grantee.member),
            ("position", grantee.position),
            ("levels", grantee.levels),
            ("role", grantee.role),
            ("walk_up", grantee.walk_up),
        )
        if value is not None
    }
    if wanted in _CHOSEN and not given:  # the kind is picked, whom it names not yet
        out.append(violation(f"grantee_{wanted}_missing", ref, f"{path}.{wanted}"))
    elif given != ({wanted} if wanted else set()):
        out.append(violation("grantee_ref_invalid", ref, path, kind=grantee.kind))
    elif grantee.kind == GranteeKind.LEVELS_UP and grantee.levels not in LEVELS_UP_RANGE:
        out.append(
            violation(
                "levels_up_invalid",
                ref,
                f"{path}.levels",
                low=LEVELS_UP_RANGE.start,
                high=LEVELS_UP_RANGE.stop - 1,
            )
        )
    elif grantee.kind == GranteeKind.ROLE and grantee.role not in roles:
        role = str(grantee.role)[:64]
        out.append(violation("grantee_role_unknown", ref, f"{path}.role", role=role))


def floor_precision(graph: Graph, places: int) -> list[Violation]:
    """Floors written with more decimals than the base currency has (``places``: 2 for
    MYR, 0 for JPY): refused, never rounded, since what routes is what was typed."""
    out: list[Violation] = []
    cent = Decimal(1).scaleb(-places)
    for i, gr in enumerate(graph.grants):
        amount = gr.min_amount
        # By value: 1000.500 is 1000.50 written long, 1000.005 is not a ringgit amount.
        if amount is not None and amount.is_finite() and amount != amount.quantize(cent):
            where = f"grants[{i}].min_amount"
            out.append(
                violation(
                    "floor_too_precise", {"grant": i}, where, amount=str(amount), places=places
                )
            )
    return out
