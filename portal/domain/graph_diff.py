"""What a draft changes against the version it would replace, in the editor's words:
states, transitions and fields added, removed and changed; grants added and removed;
the flow's settings (exclusive approval) turned on or off.

The publish confirmation summarises this, so an admin sees what they are about to put
in front of every new document. A state is known by its key, a transition by its
source state and action key (what a document in that state is offered); moving a
state or bending an arrow on the canvas is layout, not a change, but offering the
actions in another order is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

from portal.domain.graph import DocumentField, Grant, Graph, State, Transition

T = TypeVar("T")


@dataclass(frozen=True)
class Changes:
    """Keys of what was added, removed and changed, each kind sorted."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass(frozen=True)
class GrantChanges:
    """Grants have no identity of their own: what a grant says is who it is, so an
    edited grant reads as one removed and one added. In the graph's order; the edge
    words them for the reader (names from the org chart, amounts in their locale)."""

    added: tuple[Grant, ...] = ()
    removed: tuple[Grant, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.added or self.removed)


@dataclass(frozen=True)
class GraphDiff:
    states: Changes
    transitions: Changes
    grants: GrantChanges
    fields: Changes
    # The flow's own labels or posting order changed.
    flow_changed: bool
    # Exclusive approval as the draft sets it, when that differs from the version before
    # (for a first version: when it is on); None when it is unchanged.
    exclusive_approval: bool | None = None

    @property
    def any(self) -> bool:
        parts = (self.states, self.transitions, self.grants, self.fields)
        return self.flow_changed or self.exclusive_approval is not None or any(p.any for p in parts)


def _compare(
    before: Iterable[T], after: Iterable[T], key: Callable[[T], str], same: Callable[[T], Hashable]
) -> Changes:
    old = {key(item): same(item) for item in before}
    new = {key(item): same(item) for item in after}
    return Changes(
        added=tuple(sorted(new.keys() - old.keys())),
        removed=tuple(sorted(old.keys() - new.keys())),
        changed=tuple(sorted(k for k in old.keys() & new.keys() if old[k] != new[k])),
    )


def _state_content(state: State) -> Hashable:
    return replace(state, x=0, y=0)


def _transition_key(t: Transition) -> str:
    return f"{t.from_state}.{t.key}"


def _placed(graph: Graph) -> list[tuple[Transition, int]]:
    """Each transition with its place among its state's exits as a document's page
    offers them: reordering the actions is a change, renumbering them the same way is
    not (an `order` spelled out or left to drawing order compares by the place it gives)."""
    sources = dict.fromkeys(t.from_state for t in graph.transitions)
    return [(t, place) for key in sources for place, t in enumerate(graph.transitions_from(key))]


def _transition_content(placed: tuple[Transition, int]) -> Hashable:
    transition, place = placed
    return replace(transition, vertices=(), order=0), place


def _beyond(items: Iterable[Grant], other: Iterable[Grant]) -> tuple[Grant, ...]:
    """The grants of ``items`` that ``other`` lacks, counted: a second identical grant
    where there was one is one added."""
    available = Counter(other)
    extra = []
    for grant in items:
        if available[grant]:
            available[grant] -= 1
        else:
            extra.append(grant)
    return tuple(extra)


def _grant_changes(before: Iterable[Grant], after: Iterable[Grant]) -> GrantChanges:
    old, new = tuple(before), tuple(after)
    return GrantChanges(added=_beyond(new, old), removed=_beyond(old, new))


def _field_content(f: DocumentField) -> Hashable:
    return f


def diff(before: Graph | None, after: Graph) -> GraphDiff:
    """``after`` against ``before`` (None: there is no version yet, everything is new).
    Both are compared normalised, so defaults spelled out or left implicit are equal."""
    after = after.normalised()
    old = before.normalised() if before is not None else None
    return GraphDiff(
        states=_compare(old.states if old else (), after.states, lambda s: s.key, _state_content),
        transitions=_compare(
            _placed(old) if old else (),
            _placed(after),
            lambda placed: _transition_key(placed[0]),
            _transition_content,
        ),
        grants=_grant_changes(old.grants if old else (), after.grants),
        fields=_compare(old.fields if old else (), after.fields, lambda f: f.key, _field_content),
        flow_changed=old is None
        or (old.labels, old.posting_order) != (after.labels, after.posting_order),
        exclusive_approval=(
            after.exclusive_approval
            if (old.exclusive_approval if old else False) != after.exclusive_approval
            else None
        ),
    )
