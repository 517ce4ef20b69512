"""Rule 0, well-formed: keys, labels, known vocabulary, references between elements,
guards that parse and read only declared paths, floors in the base currency, size caps.

Its errors stop the validator before the graph rules: reachability over a graph whose
transitions name missing states would bury the real defect under noise.
"""

from __future__ import annotations

from collections.abc import Collection
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
    Graph,
    PostingOrder,
    StateRole,
)
from portal.domain.labels import Labels
from portal.domain.locales import DEFAULT_LOCALE, SUPPORTED_LOCALES
from portal.domain.validate import well_formed_grants
from portal.domain.validate.violations import (
    ERROR,
    Params,
    Ref,
    Rule,
    Violation,
    describe,
    violation,
)

# Every element is looked up in a vocabulary on every change: sets, not tuples.
_STATE_ROLES = frozenset(StateRole.ALL)
_APPROVALS = frozenset(Approval.ALL)
_GATES = frozenset(Gate.ALL)
_COMMENT_POLICIES = frozenset(CommentPolicy.ALL)
_LOCALES = frozenset(SUPPORTED_LOCALES)


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
    if not _labels_fine(graph.labels):
        _labels(graph.labels, {}, "", out)
    _fields(graph, out)
    known = _states(graph, out)
    _transitions(graph, known, out)
    _deadlines(graph, out)
    well_formed_grants.check(graph, known, base_currency, roles, out)
    return out


def _labels_fine(labels: Labels) -> bool:
    """Whether ``_labels`` would find nothing, answered without the element's place
    (``ref``, ``path``): this is asked of every element on every change."""
    english = labels.get(DEFAULT_LOCALE)
    if not english or english.isspace():
        return False
    for locale, text in labels.items():
        if locale not in _LOCALES or len(text) > MAX_LABEL_LENGTH:
            return False
    return True


def _labels(labels: Labels, ref: Ref, path: str, out: list[Violation]) -> None:
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
        if not _labels_fine(f.labels):
            _labels(f.labels, ref, path, out)
        choice_keys: set[str] = set()
        for j, c in enumerate(f.choices):
            where = f"{path}.choices[{j}]"
            if not KEY_PATTERN.fullmatch(c.key):
                out.append(violation("choice_key_invalid", ref, f"{where}.key", key=c.key[:64]))
            elif c.key in choice_keys:
                out.append(violation("choice_key_duplicate", ref, f"{where}.key", key=c.key))
            choice_keys.add(c.key)
            if not _labels_fine(c.labels):
                _labels(c.labels, ref, where, out)


def _states(graph: Graph, out: list[Violation]) -> set[str]:
    """Checks the states; returns the keys a transition or a grant may name (well-formed,
    first of their name)."""
    known: set[str] = set()
    for i, s in enumerate(graph.states):
        # A state's place (``ref``, ``path``) is built only for a violation, as in every
        # check below: this runs for every element on every change.
        if not KEY_PATTERN.fullmatch(s.key):
            out.append(_at_state(i, s.key, "state_key_invalid", ".key", key=s.key[:64]))
        elif s.key in known:
            out.append(_at_state(i, s.key, "state_key_duplicate", ".key", key=s.key))
        else:
            known.add(s.key)
        if s.role not in _STATE_ROLES:
            out.append(_at_state(i, s.key, "state_role_unknown", ".role", role=s.role[:64]))
        if s.approval not in _APPROVALS:
            approval = str(s.approval)[:64]
            out.append(_at_state(i, s.key, "approval_unsupported", ".approval", approval=approval))
        if s.escalate_after is not None and duration_minutes(s.escalate_after) is None:
            value = s.escalate_after[:64]
            out.append(
                _at_state(i, s.key, "escalate_after_invalid", ".escalate_after", value=value)
            )
        if not _labels_fine(s.labels):
            _labels(s.labels, {"state": s.key}, f"states[{i}]", out)
    return known


def _at_state(i: int, key: str, code: str, where: str, /, **params: str | int) -> Violation:
    return violation(code, {"state": key}, f"states[{i}]{where}", **params)


def _transitions(graph: Graph, known: set[str], out: list[Violation]) -> None:
    seen: set[tuple[str, str]] = set()
    paths = frozenset(guards.known_paths((f.key, f.type) for f in graph.fields).items())
    # Each key matched once: an action's key recurs on many states ("approve", "reject").
    keys = {t.key for t in graph.transitions}
    invalid_keys = {key for key in keys if not KEY_PATTERN.fullmatch(key)}
    for i, t in enumerate(graph.transitions):
        if t.key in invalid_keys:
            out.append(_at_transition(i, "transition_key_invalid", ".key", key=t.key[:64]))
        if t.from_state not in known:
            where, state = ".from", t.from_state[:64]
            out.append(_at_transition(i, "transition_state_unknown", where, state=state))
        if t.to_state not in known:
            where, state = ".to", t.to_state[:64]
            out.append(_at_transition(i, "transition_state_unknown", where, state=state))
        if t.from_state == t.to_state:
            state = t.from_state[:64]
            out.append(_at_transition(i, "transition_self_loop", "", state=state))
        exit_key = (t.from_state, t.key)
        if exit_key in seen:
            described = describe(t)
            out.append(_at_transition(i, "transition_duplicate", ".key", transition=described))
        seen.add(exit_key)
        if t.gate not in _GATES:
            out.append(_at_transition(i, "gate_unknown", ".gate", gate=t.gate[:64]))
        if t.comment not in _COMMENT_POLICIES:
            value = str(t.comment)[:64]
            out.append(_at_transition(i, "comment_policy_unknown", ".comment", value=value))
        if not _labels_fine(t.labels):
            _labels(t.labels, {"transition": i}, f"transitions[{i}]", out)
        if t.guard is not None:
            path = f"transitions[{i}].guard"
            for code, params in _guard_problems(t.guard.expression, paths):
                # Guard codes are the guard language's own, outside CODES.
                # Copied: the cache hands the same parameters to every run.
                out.append(
                    Violation(
                        Rule.WELL_FORMED,
                        code,
                        ERROR,
                        {"transition": i},
                        f"{path}.expression",
                        dict(params),
                    )
                )
            if not _labels_fine(t.guard.message):
                _labels(t.guard.message, {"transition": i}, f"{path}.message", out)


def _at_transition(i: int, code: str, where: str, /, **params: str | int) -> Violation:
    return violation(code, {"transition": i}, f"transitions[{i}]{where}", **params)


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
