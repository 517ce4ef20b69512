"""The graph as the graph rules read it: positions, exits and grants, built once.

Built only for a well-formed graph (every transition and grant names a state that
exists, state keys are unique), so a rule can look anything up without checking. It is
immutable and no rule adds to it: every rule reads the same facts, in any order, and
none of them is quadratic in the transitions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from portal.domain.graph import Gate, Grant, Graph, State, StateRole, gate_state_of


@dataclass(frozen=True, slots=True)
class GraphIndex:
    graph: Graph  # normalised
    position: Mapping[str, int]  # state key -> its index in ``graph.states``
    # state index -> the indexes of the states its exits lead to, in drawing order
    exits: tuple[tuple[int, ...], ...]
    # transition index -> the indexes of the states it leaves and enters
    ends: tuple[tuple[int, int], ...]
    # state key -> where its target-gated exits lead (``Graph.target_gated_exits``)
    target_gated_exits: Mapping[str, tuple[str, ...]]
    # transition index -> the state whose grants authorise it (``Graph.gate_state``)
    gate_states: tuple[str | None, ...]
    # states with an exit someone other than the requester takes
    gated_exits: frozenset[str]
    # state key -> the grants covering it: its own first, then the all-states ones
    grants_by_state: Mapping[str, tuple[Grant, ...]]
    # state index -> whether entering it undoes what was posted before
    reversing: tuple[bool, ...]
    drafts: tuple[int, ...]  # indexes of the draft states

    @classmethod
    def of(cls, graph: Graph) -> GraphIndex:
        position = {s.key: i for i, s in enumerate(graph.states)}
        exits: list[list[int]] = [[] for _ in graph.states]
        ends: list[tuple[int, int]] = []
        gated_exits: set[str] = set()
        forward: dict[str, list[str]] = {}
        for t in graph.transitions:
            source, target = position[t.from_state], position[t.to_state]
            exits[source].append(target)
            ends.append((source, target))
            if t.gate != Gate.REQUESTER:
                gated_exits.add(t.from_state)
            if t.gate == Gate.TARGET:
                forward.setdefault(t.from_state, []).append(t.to_state)
        target_gated_exits = {key: tuple(targets) for key, targets in forward.items()}

        def target_gated_exits_of(key: str) -> tuple[str, ...]:
            return target_gated_exits.get(key, ())

        own: dict[str, list[Grant]] = {key: [] for key in position}
        for grant in graph.grants:
            if grant.state is not None:
                own[grant.state].append(grant)
        everywhere = [grant for grant in graph.grants if grant.all_states]
        return cls(
            graph=graph,
            position=position,
            # List comprehensions, not generators: this runs on every editor change.
            exits=tuple([tuple(targets) for targets in exits]),
            ends=tuple(ends),
            target_gated_exits=target_gated_exits,
            gate_states=tuple([gate_state_of(t, target_gated_exits_of) for t in graph.transitions]),
            gated_exits=frozenset(gated_exits),
            grants_by_state={key: (*grants, *everywhere) for key, grants in own.items()},
            reversing=tuple([s.role in StateRole.REVERSING for s in graph.states]),
            drafts=tuple([i for i, s in enumerate(graph.states) if s.role == StateRole.DRAFT]),
        )

    @property
    def initial(self) -> int:
        """The index of the initial state; only once rule 1 has found exactly one."""
        [only] = self.drafts
        return only

    def target_of(self, transition: int) -> State:
        return self.graph.states[self.ends[transition][1]]
