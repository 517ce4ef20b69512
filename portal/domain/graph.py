"""The flow graph: states, transitions, grants, deadlines, document fields and the
editor's layout, with the vocabulary they are written in (their texts are ``labels``).

A graph is what an admin draws and what a published version freezes. Everything here
is immutable so a loaded version can be cached and shared between requests. Its JSON
form is ``graph_json``'s business.

A graph may be invalid (an unknown gate, a key with capitals, a negative floor): a
draft is saved as drawn, and ``validate.validate()`` reports those as violations the
editor can show next to the element.

Optional attributes are ``None`` when the author left them out; ``normalised()`` fills
in the defaults, so a graph saved with and without them compares equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from portal.domain.labels import Labels

KEY_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,62}")

# Size caps: the validator refuses anything larger, and no real approval flow comes near.
MAX_STATES = 64
MAX_TRANSITIONS = 256
MAX_GRANTS = 256
MAX_FIELDS = 32
MAX_CHOICES = 64
MAX_LABEL_LENGTH = 200


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


@dataclass(frozen=True)
class Deadline:
    # A duration such as "30m", "48h" or "3d" (see ``durations.duration_minutes``).
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
    # Segregation of duties: a member decides at most one approval step of a document
    # (``domain.exclusive`` states the rule). Off unless the flow turns it on.
    exclusive_approval: bool = False

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
        """The state whose grants authorise ``transition`` (see ``gate_state_of``)."""
        return gate_state_of(transition, self.target_gated_exits)

    def target_gated_exits(self, key: str) -> tuple[str, ...]:
        """Where the target-gated exits of a state lead, in drawing order: the siblings
        an advance gate leaving that state borrows its authority from."""
        return tuple(
            t.to_state for t in self.transitions if t.from_state == key and t.gate == Gate.TARGET
        )

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

    def exclusive_steps(self) -> list[str]:
        """The approval steps exclusive approval gives distinct deciders: those that move
        a document forward (a target-gated way into a rejected state is no step)."""
        return [key for key in self.approval_states() if self.moves_forward(key)]

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


def gate_state_of(
    transition: Transition, target_gated_exits: Callable[[str], Sequence[str]]
) -> str | None:
    """The state whose grants authorise ``transition``; None for a requester gate.

    An advance gate borrows the authority of the single target-gated exit of the same
    state (``target_gated_exits(state)`` says where those lead); with zero or several
    such exits it has none (validator rule 6). A graph answers it by scanning its
    transitions, the validator from an index built once.
    """
    if transition.gate == Gate.TARGET:
        return transition.to_state
    if transition.gate == Gate.SOURCE:
        return transition.from_state
    if transition.gate == Gate.ADVANCE:
        forward = target_gated_exits(transition.from_state)
        return forward[0] if len(forward) == 1 else None
    return None


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
