"""The flow graph: states, transitions, grants, deadlines, document fields, labels and
the editor's layout — and its JSON codec.

A graph is what an admin draws and what a published version freezes. Everything here
is immutable so a loaded version can be cached and shared between requests.

The codec checks *shape* only (types, required and unknown keys) and names the path of
the first problem, e.g. ``transitions[3].gate``. It deliberately accepts values that
are well-typed but wrong (an unknown gate, a key with capitals, a negative floor): a
draft may be invalid, and ``validate.validate()`` reports those as violations the
editor can show next to the element.

Optional attributes are ``None`` when the author left them out; ``normalised()`` fills
in the defaults, so a graph saved with and without them compares equal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from portal.domain.errors import DomainError
from portal.domain.locales import DEFAULT_LOCALE

FORMAT = 1  # the graph document's own format number, for future migrations of the JSON

KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,62}$")

# Size caps: the validator refuses anything larger, and no real approval flow comes near.
MAX_STATES = 64
MAX_TRANSITIONS = 256
MAX_GRANTS = 256
MAX_FIELDS = 32
MAX_CHOICES = 64
MAX_LABEL_LENGTH = 200

# Loader limits, far above any legitimate graph: they bound the cost of hostile input.
MAX_DOCUMENT_BYTES = 1_000_000
MAX_STRING = 2_000
MAX_LIST = 4 * MAX_TRANSITIONS


class StateRole:
    DRAFT = "draft"
    PENDING = "pending"
    ACCRUAL = "accrual"  # money is committed: the ledger books the liability
    PAYOUT = "payout"  # money leaves
    ACKNOWLEDGED = "acknowledged"
    DISPUTE = "dispute"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    CUSTOM = "custom"
    ALL = (DRAFT, PENDING, ACCRUAL, PAYOUT, ACKNOWLEDGED, DISPUTE, REJECTED, CANCELLED, CUSTOM)
    # Entering one of these undoes whatever was posted before it.
    REVERSING = (REJECTED, CANCELLED)
    POSTING = (ACCRUAL, PAYOUT)


class Gate:
    REQUESTER = "requester"  # the document's requester, and nobody else
    TARGET = "target"  # holders of grants on the destination state
    SOURCE = "source"  # holders of grants on the state being left
    ADVANCE = "advance"  # a rejection, authorised like the one target-gated sibling
    ALL = (REQUESTER, TARGET, SOURCE, ADVANCE)


class GranteeKind:
    MEMBER = "member"
    POSITION = "position"
    SUPERIOR = "superior"
    UNIT_HEAD = "unit_head"
    LEVELS_UP = "levels_up"
    ROLE = "role"
    ALL = (MEMBER, POSITION, SUPERIOR, UNIT_HEAD, LEVELS_UP, ROLE)


class OnVacancy:
    ESCALATE = "escalate"
    REFUSE = "refuse"
    ALL = (ESCALATE, REFUSE)


class CommentPolicy:
    OPTIONAL = "optional"
    REQUIRED = "required"
    ALL = (OPTIONAL, REQUIRED)


class PostingOrder:
    ACCRUAL_FIRST = "accrual_first"
    PAYOUT_FIRST = "payout_first"
    ALL = (ACCRUAL_FIRST, PAYOUT_FIRST)


class Approval:
    ANY = "any"  # the first eligible member decides; `all` and quorums arrive later
    ALL = (ANY,)


class FieldType:
    TEXT = "text"
    NUMBER = "number"
    MONEY = "money"
    DATE = "date"
    CHOICE = "choice"
    BOOL = "bool"
    ALL = (TEXT, NUMBER, MONEY, DATE, CHOICE, BOOL)


class BreachAction:
    REMIND = "remind"  # notify the assignees again
    ESCALATE_UP = "escalate_up"  # open tasks for the next filled seat above
    REASSIGN = "reassign"  # move the task to the assignee's superior
    AUTO = "auto"  # the system fires `transition`
    ALL = (REMIND, ESCALATE_UP, REASSIGN, AUTO)


DEFAULT_MAX_ESCALATION_LEVELS = 2


# Entering one of these undoes or stops a document rather than moving it on.
_BACKWARD_ROLES = (StateRole.REJECTED, StateRole.CANCELLED, StateRole.DISPUTE)


class Labels(Mapping[str, str]):
    """Locale -> text, immutable. ``en`` is required (the validator says so)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        self._items = dict(items)

    def __getitem__(self, locale: str) -> str:
        return self._items[locale]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    # The ABC's generic versions go through __getitem__ one key at a time; the
    # validator reads every label of every element on each editor change.
    def get(self, locale: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return self._items.get(locale, default)

    def items(self):  # type: ignore[no-untyped-def, override]
        return self._items.items()

    def __contains__(self, locale: object) -> bool:
        return locale in self._items

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._items == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Labels({self._items!r})"

    def text(self, locale: str) -> str:
        """The label in ``locale``, falling back to English, then to any label at all."""
        for candidate in (locale, DEFAULT_LOCALE):
            value = self._items.get(candidate, "").strip()
            if value:
                return value
        return next((v for v in self._items.values() if v.strip()), "")


@dataclass(frozen=True)
class Deadline:
    # A duration such as "30m", "48h" or "3d" (see ``parse_duration``).
    after: str
    on_breach: str
    # Only for ``on_breach == "auto"``: the transition the system fires.
    transition: str | None = None


@dataclass(frozen=True)
class State:
    key: str
    labels: Labels
    role: str
    terminal: bool = False
    deadline: Deadline | None = None
    # After this long without a decision, the open tasks escalate one seat up.
    escalate_after: str | None = None
    approval: str | None = None  # None = Approval.ANY
    # Where the editor draws the state.
    x: int = 0
    y: int = 0


@dataclass(frozen=True)
class TransitionGuard:
    expression: str
    # What the refused user reads when the guard is false.
    message: Labels


@dataclass(frozen=True)
class Transition:
    key: str  # the action, e.g. "approve"; unique among the exits of one state
    from_state: str
    to_state: str
    gate: str
    labels: Labels
    guard: TransitionGuard | None = None
    comment: str | None = None  # None = CommentPolicy.OPTIONAL
    # Entering the destination reverses an accrual booked earlier on the path.
    reverses: bool = False
    order: int = 0  # display order among the exits of one state
    # Bend points the editor draws the arrow through.
    vertices: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Grantee:
    kind: str
    member: int | None = None  # kind "member": a membership id
    position: int | None = None  # kind "position": a position id
    levels: int | None = None  # kind "levels_up": how many seats above the requester
    role: str | None = None  # kind "role": an organization role
    # kind "unit_head": when the requester's unit has no head, ask the parent unit's.
    walk_up: bool | None = None


@dataclass(frozen=True)
class Grant:
    grantee: Grantee
    state: str | None = None  # None when the grant covers every state
    all_states: bool = False
    # The floor of this grant's band, in the organization's base currency.
    min_amount: Decimal | None = None
    currency: str | None = None
    on_vacancy: str | None = None  # None = OnVacancy.ESCALATE
    max_escalation_levels: int | None = None  # None = DEFAULT_MAX_ESCALATION_LEVELS

    @property
    def floor(self) -> Decimal:
        return self.min_amount if self.min_amount is not None else Decimal(0)

    def covers(self, state_key: str) -> bool:
        return self.all_states or self.state == state_key


@dataclass(frozen=True)
class Choice:
    key: str
    labels: Labels


@dataclass(frozen=True)
class DocumentField:
    """A field documents of this kind carry beyond title, description and amount."""

    key: str
    type: str
    labels: Labels
    required: bool = False
    choices: tuple[Choice, ...] = ()


@dataclass(frozen=True)
class Graph:
    kind: str
    labels: Labels
    states: tuple[State, ...]
    transitions: tuple[Transition, ...] = ()
    grants: tuple[Grant, ...] = ()
    fields: tuple[DocumentField, ...] = ()
    posting_order: str | None = None  # None = PostingOrder.ACCRUAL_FIRST

    # --- questions the validator, the router and the engine ask -----------------------

    def state(self, key: str) -> State | None:
        return next((s for s in self.states if s.key == key), None)

    def initial_state(self) -> State | None:
        drafts = [s for s in self.states if s.role == StateRole.DRAFT]
        return drafts[0] if len(drafts) == 1 else None

    def transitions_from(self, key: str) -> list[Transition]:
        """The exits of a state in display order (ties keep their drawing order)."""
        exits = [t for t in self.transitions if t.from_state == key]
        return sorted(exits, key=lambda t: t.order)

    def transition(self, from_state: str, key: str) -> Transition | None:
        return next(
            (t for t in self.transitions if t.from_state == from_state and t.key == key), None
        )

    def moves_forward(self, to_state: str) -> bool:
        """Whether entering ``to_state`` moves a document on, rather than rejecting,
        withdrawing or disputing it (the page dresses only forward actions as the
        main one)."""
        target = self.state(to_state)
        return target is not None and target.role not in _BACKWARD_ROLES

    def state_label(self, key: str, locale: str) -> str:
        """A state's name in ``locale``; the bare key when this graph has no such state
        (a document's pinned version always does, but a refusal may name any key)."""
        found = self.state(key)
        return found.labels.text(locale) if found is not None else key

    def transition_label(self, from_state: str, key: str, locale: str) -> str:
        found = self.transition(from_state, key)
        return found.labels.text(locale) if found is not None else key

    def gate_state(self, transition: Transition) -> str | None:
        """The state whose grants authorise ``transition``; None for a requester gate.

        An advance gate borrows the authority of the single target-gated exit of the
        same state; with zero or several such exits it has none (validator rule 6).
        """
        if transition.gate == Gate.TARGET:
            return transition.to_state
        if transition.gate == Gate.SOURCE:
            return transition.from_state
        if transition.gate == Gate.ADVANCE:
            forward = [
                t.to_state
                for t in self.transitions
                if t.from_state == transition.from_state and t.gate == Gate.TARGET
            ]
            return forward[0] if len(forward) == 1 else None
        return None

    def grants_on(self, state_key: str) -> tuple[Grant, ...]:
        """The state's own grants plus every all-states grant."""
        return tuple(g for g in self.grants if g.covers(state_key))

    def deciding_grants(self, state_key: str) -> tuple[Grant, ...]:
        """The grants whose holders act on a document sitting in ``state_key``: those on
        the gate states of its exits (the requester's own exits need none)."""
        found: list[Grant] = []
        for t in self.transitions_from(state_key):
            gate_state = self.gate_state(t)
            if gate_state is None:
                continue
            for grant in self.grants_on(gate_state):
                if grant not in found:
                    found.append(grant)
        return tuple(found)

    def approval_states(self) -> list[str]:
        """Every state entered through a target-gated transition, in drawing order:
        the steps a document must be routable through."""
        entered = {t.to_state for t in self.transitions if t.gate == Gate.TARGET}
        return [s.key for s in self.states if s.key in entered]

    def field(self, key: str) -> DocumentField | None:
        return next((f for f in self.fields if f.key == key), None)

    def normalised(self) -> Graph:
        """The same graph with every default filled in (elements already complete are
        kept as they are, so normalising a normalised graph is cheap)."""
        return replace(
            self,
            # ``is None``, not ``or``: a value given but empty stays wrong for the validator.
            posting_order=(
                PostingOrder.ACCRUAL_FIRST if self.posting_order is None else self.posting_order
            ),
            states=tuple(
                s if s.approval is not None else replace(s, approval=Approval.ANY)
                for s in self.states
            ),
            transitions=tuple(
                t if t.comment is not None else replace(t, comment=CommentPolicy.OPTIONAL)
                for t in self.transitions
            ),
            grants=tuple(_normalised_grant(g) for g in self.grants),
        )


def _normalised_grant(grant: Grant) -> Grant:
    grantee = grant.grantee
    walk_up_missing = grantee.kind == GranteeKind.UNIT_HEAD and grantee.walk_up is None
    if (
        grant.on_vacancy is not None
        and grant.max_escalation_levels is not None
        and not walk_up_missing
    ):
        return grant
    if walk_up_missing:
        grantee = replace(grantee, walk_up=False)
    return replace(
        grant,
        grantee=grantee,
        on_vacancy=OnVacancy.ESCALATE if grant.on_vacancy is None else grant.on_vacancy,
        max_escalation_levels=(
            grant.max_escalation_levels
            if grant.max_escalation_levels is not None
            else DEFAULT_MAX_ESCALATION_LEVELS
        ),
    )


# --- durations ---------------------------------------------------------------------

_DURATION = re.compile(r"^([1-9][0-9]{0,4})([mhd])$")
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 24 * 60}
MIN_DURATION_MINUTES = 5
MAX_DURATION_MINUTES = 366 * 24 * 60


def duration_minutes(text: str) -> int | None:
    """``"48h"`` -> 2880; None when the text is not a duration we accept."""
    match = _DURATION.match(text)
    if not match:
        return None
    minutes = int(match.group(1)) * _UNIT_MINUTES[match.group(2)]
    if not MIN_DURATION_MINUTES <= minutes <= MAX_DURATION_MINUTES:
        return None
    return minutes


# --- JSON out ----------------------------------------------------------------------


def _labels_json(labels: Labels) -> dict[str, str]:
    return dict(labels)


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def to_json(graph: Graph) -> dict[str, Any]:
    """The graph as plain JSON data. Attributes left out (None) stay out, so
    ``from_json(to_json(g)) == g`` exactly; export ``g.normalised()`` for the full form."""
    return _drop_none(
        {
            "format": FORMAT,
            "kind": graph.kind,
            "labels": _labels_json(graph.labels),
            "posting_order": graph.posting_order,
            "fields": [_field_json(f) for f in graph.fields],
            "states": [_state_json(s) for s in graph.states],
            "transitions": [_transition_json(t) for t in graph.transitions],
            "grants": [_grant_json(g) for g in graph.grants],
        }
    )


def _field_json(f: DocumentField) -> dict[str, Any]:
    data: dict[str, Any] = {
        "key": f.key,
        "type": f.type,
        "labels": _labels_json(f.labels),
        "required": f.required,
    }
    if f.choices:
        data["choices"] = [{"key": c.key, "labels": _labels_json(c.labels)} for c in f.choices]
    return data


def _state_json(s: State) -> dict[str, Any]:
    deadline = None
    if s.deadline is not None:
        deadline = _drop_none(
            {
                "after": s.deadline.after,
                "on_breach": s.deadline.on_breach,
                "transition": s.deadline.transition,
            }
        )
    return _drop_none(
        {
            "key": s.key,
            "labels": _labels_json(s.labels),
            "role": s.role,
            "terminal": s.terminal,
            "deadline": deadline,
            "escalate_after": s.escalate_after,
            "approval": s.approval,
            "x": s.x,
            "y": s.y,
        }
    )


def _transition_json(t: Transition) -> dict[str, Any]:
    guard = None
    if t.guard is not None:
        guard = {"expression": t.guard.expression, "message": _labels_json(t.guard.message)}
    data = _drop_none(
        {
            "key": t.key,
            "from": t.from_state,
            "to": t.to_state,
            "gate": t.gate,
            "labels": _labels_json(t.labels),
            "guard": guard,
            "comment": t.comment,
            "reverses": t.reverses,
            "order": t.order,
        }
    )
    if t.vertices:
        data["vertices"] = [list(v) for v in t.vertices]
    return data


def _grant_json(g: Grant) -> dict[str, Any]:
    grantee = _drop_none(
        {
            "kind": g.grantee.kind,
            "member": g.grantee.member,
            "position": g.grantee.position,
            "levels": g.grantee.levels,
            "role": g.grantee.role,
            "walk_up": g.grantee.walk_up,
        }
    )
    return _drop_none(
        {
            "state": g.state,
            "all_states": g.all_states or None,
            "grantee": grantee,
            # Fixed-point, never an exponent ("1E+3"), so the loader reads it back.
            "min_amount": format(g.min_amount, "f") if g.min_amount is not None else None,
            "currency": g.currency,
            "on_vacancy": g.on_vacancy,
            "max_escalation_levels": g.max_escalation_levels,
        }
    )


def dumps(graph: Graph, *, indent: int | None = 2) -> str:
    return json.dumps(to_json(graph), ensure_ascii=False, indent=indent)


# --- JSON in -----------------------------------------------------------------------


class GraphFormatError(DomainError):
    """The document is not a flow graph: not JSON, or the wrong shape somewhere.

    ``path`` names the place, e.g. ``transitions[3].gate`` ("" for the whole document).
    """

    def __init__(self, code: str, /, path: str = "", **params: Any) -> None:
        super().__init__(code, path=path or "$", **params)
        self.path = path


def loads(text: str | bytes) -> Graph:
    """Parse a graph document. Raises GraphFormatError only."""
    if isinstance(text, bytes):
        if len(text) > MAX_DOCUMENT_BYTES:
            raise GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise GraphFormatError("graph_not_utf8") from None
    if len(text.encode("utf-8", "surrogatepass")) > MAX_DOCUMENT_BYTES:
        raise GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise GraphFormatError("graph_not_json", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        # The C decoder gives up cleanly on absurd nesting; the reader below only ever
        # descends the fixed shape of a graph, so nothing else recurses on input.
        raise GraphFormatError("graph_too_deep") from None
    except ValueError:  # NaN / Infinity
        raise GraphFormatError("graph_not_json", line=1, column=1) from None
    return from_json(data)


def _refuse_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; Python's parser accepts them unless told not to.
    raise ValueError(name)


_MISSING = object()


class _Reader:
    """Reads one JSON object, checking each value's type and naming its path."""

    def __init__(
        self, data: object, path: str, required: tuple[str, ...], optional: tuple[str, ...]
    ):
        if not isinstance(data, dict):
            raise GraphFormatError("graph_wrong_type", path, expected="object")
        for key in data:
            if key not in required and key not in optional:
                # The refusal quotes the key, so it must be printable text itself.
                raise GraphFormatError("graph_unknown_key", _join(path, _encodable(key, path)))
        for key in required:
            if key not in data:
                raise GraphFormatError("graph_missing_key", _join(path, key))
        self.data = data
        self.path = path

    def at(self, key: str) -> str:
        return _join(self.path, key)

    def raw(self, key: str) -> object:
        return self.data.get(key, _MISSING)

    def string(self, key: str) -> str | None:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return None
        return _string(value, self.at(key))

    def boolean(self, key: str) -> bool | None:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return None
        if not isinstance(value, bool):
            raise GraphFormatError("graph_wrong_type", self.at(key), expected="boolean")
        return value

    def integer(self, key: str) -> int | None:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return None
        return _integer(value, self.at(key))

    def coordinate(self, key: str) -> int:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return 0
        return _coordinate(value, self.at(key))

    def labels(self, key: str) -> Labels:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return Labels()
        return _labels(value, self.at(key))

    def items(self, key: str) -> list[tuple[object, str]]:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return []
        path = self.at(key)
        if not isinstance(value, list):
            raise GraphFormatError("graph_wrong_type", path, expected="array")
        if len(value) > MAX_LIST:
            raise GraphFormatError("graph_list_too_long", path, limit=MAX_LIST)
        return [(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise GraphFormatError("graph_wrong_type", path, expected="string")
    if len(value) > MAX_STRING:
        raise GraphFormatError("graph_string_too_long", path, limit=MAX_STRING)
    return _encodable(value, path)


def _encodable(value: str, path: str) -> str:
    # "\ud800" is valid JSON, but the lone surrogate it escapes has no UTF-8 form: the
    # graph would load and validate, then fail when it is stored or hashed.
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise GraphFormatError("graph_not_utf8", path) from None
    return value


def _integer(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphFormatError("graph_wrong_type", path, expected="integer")
    if abs(value) > 2**53:  # JavaScript's safe range: the editor must read it back
        raise GraphFormatError("graph_number_out_of_range", path)
    return value


def _coordinate(value: object, path: str) -> int:
    # The editor may send fractional positions after a drag; whole pixels are enough.
    if isinstance(value, (Decimal, float)) and not isinstance(value, bool):
        number = Decimal(value) if isinstance(value, float) else value
        if number.is_finite() and abs(number) <= 10**6:
            return int(number.to_integral_value())
        raise GraphFormatError("graph_number_out_of_range", path)
    value = _integer(value, path)
    if abs(value) > 10**6:
        raise GraphFormatError("graph_number_out_of_range", path)
    return value


def _labels(value: object, path: str) -> Labels:
    if not isinstance(value, dict):
        raise GraphFormatError("graph_wrong_type", path, expected="object")
    if len(value) > 16:
        raise GraphFormatError("graph_list_too_long", path, limit=16)
    return Labels(
        (_encodable(locale, path), _string(text, _join(path, locale)))
        for locale, text in value.items()
    )


_AMOUNT = re.compile(r"^-?[0-9]{1,15}(\.[0-9]{1,4})?$")


def _amount(value: object, path: str) -> Decimal:
    """Money is a decimal string on the wire ("2000.00"), never a float."""
    if not isinstance(value, str) or not _AMOUNT.match(value):
        raise GraphFormatError("graph_bad_amount", path)
    try:
        return Decimal(value)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise GraphFormatError("graph_bad_amount", path) from None


def from_json(data: object) -> Graph:
    """Build a graph from parsed JSON data. Raises GraphFormatError only."""
    # The format first: another format may have other keys, and "format 2 cannot be read
    # here" is the answer, not "key x is not part of a flow". A boolean is no format
    # number, though Python says True == 1.
    fmt = data.get("format", _MISSING) if isinstance(data, dict) else _MISSING
    if fmt is not _MISSING and (isinstance(fmt, bool) or fmt != FORMAT):
        raise GraphFormatError("graph_format_unsupported", "format", format=str(fmt)[:20])
    r = _Reader(
        data,
        "",
        required=("kind", "states"),
        optional=("format", "labels", "posting_order", "fields", "transitions", "grants"),
    )
    return Graph(
        kind=r.string("kind") or "",
        labels=r.labels("labels"),
        posting_order=r.string("posting_order"),
        fields=tuple(_read_field(item, path) for item, path in r.items("fields")),
        states=tuple(_read_state(item, path) for item, path in r.items("states")),
        transitions=tuple(_read_transition(item, path) for item, path in r.items("transitions")),
        grants=tuple(_read_grant(item, path) for item, path in r.items("grants")),
    )


def _read_field(data: object, path: str) -> DocumentField:
    r = _Reader(data, path, ("key", "type"), ("labels", "required", "choices"))
    choices = []
    for item, item_path in r.items("choices"):
        c = _Reader(item, item_path, ("key",), ("labels",))
        choices.append(Choice(key=c.string("key") or "", labels=c.labels("labels")))
    return DocumentField(
        key=r.string("key") or "",
        type=r.string("type") or "",
        labels=r.labels("labels"),
        required=bool(r.boolean("required")),
        choices=tuple(choices),
    )


def _read_state(data: object, path: str) -> State:
    r = _Reader(
        data,
        path,
        ("key", "role"),
        ("labels", "terminal", "deadline", "escalate_after", "approval", "x", "y"),
    )
    deadline = None
    raw = r.raw("deadline")
    if raw is not _MISSING and raw is not None:
        d = _Reader(raw, r.at("deadline"), ("after", "on_breach"), ("transition",))
        deadline = Deadline(
            after=d.string("after") or "",
            on_breach=d.string("on_breach") or "",
            transition=d.string("transition"),
        )
    return State(
        key=r.string("key") or "",
        labels=r.labels("labels"),
        role=r.string("role") or "",
        terminal=bool(r.boolean("terminal")),
        deadline=deadline,
        escalate_after=r.string("escalate_after"),
        approval=r.string("approval"),
        x=r.coordinate("x"),
        y=r.coordinate("y"),
    )


def _read_transition(data: object, path: str) -> Transition:
    r = _Reader(
        data,
        path,
        ("key", "from", "to", "gate"),
        ("labels", "guard", "comment", "reverses", "order", "vertices"),
    )
    guard = None
    raw = r.raw("guard")
    if raw is not _MISSING and raw is not None:
        g = _Reader(raw, r.at("guard"), ("expression",), ("message",))
        guard = TransitionGuard(
            expression=g.string("expression") or "", message=g.labels("message")
        )
    vertices = []
    for item, item_path in r.items("vertices"):
        if not isinstance(item, list) or len(item) != 2:
            raise GraphFormatError("graph_wrong_type", item_path, expected="[x, y]")
        vertices.append(
            (_coordinate(item[0], f"{item_path}[0]"), _coordinate(item[1], f"{item_path}[1]"))
        )
    return Transition(
        key=r.string("key") or "",
        from_state=r.string("from") or "",
        to_state=r.string("to") or "",
        gate=r.string("gate") or "",
        labels=r.labels("labels"),
        guard=guard,
        comment=r.string("comment"),
        reverses=bool(r.boolean("reverses")),
        order=r.integer("order") or 0,
        vertices=tuple(vertices),
    )


def _read_grant(data: object, path: str) -> Grant:
    r = _Reader(
        data,
        path,
        ("grantee",),
        ("state", "all_states", "min_amount", "currency", "on_vacancy", "max_escalation_levels"),
    )
    e = _Reader(
        r.raw("grantee"),
        r.at("grantee"),
        ("kind",),
        ("member", "position", "levels", "role", "walk_up"),
    )
    raw_amount = r.raw("min_amount")
    min_amount = None
    if raw_amount is not _MISSING and raw_amount is not None:
        min_amount = _amount(raw_amount, r.at("min_amount"))
    return Grant(
        grantee=Grantee(
            kind=e.string("kind") or "",
            member=e.integer("member"),
            position=e.integer("position"),
            levels=e.integer("levels"),
            role=e.string("role"),
            walk_up=e.boolean("walk_up"),
        ),
        state=r.string("state"),
        all_states=bool(r.boolean("all_states")),
        min_amount=min_amount,
        currency=r.string("currency"),
        on_vacancy=r.string("on_vacancy"),
        max_escalation_levels=r.integer("max_escalation_levels"),
    )
