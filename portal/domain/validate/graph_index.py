"""The graph as the graph rules read it: positions, exits and entries, gates and grants,
built once.

Built only for a well-formed graph (every transition and grant names a state that
exists, state keys are unique), so a rule can look anything up without checking. It is
immutable and no rule adds to it: every rule reads the same facts, in any order, and
none of them is quadratic in the transitions.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from portal.domain.graph import Gate, Grant, Graph, StateRole, gate_state_of


@dataclass(frozen=True, slots=True)
class GraphIndex:
    graph: Graph  # normalised
    position: Mapping[str, int]  # state key -> its index in ``graph.states``
    # state index -> the indexes of the states its exits lead to, in drawing order
    exits: tuple[tuple[int, ...], ...]
    # state index -> the indexes of the transitions leaving (entering) it, in drawing order:
    # a rule about some states' exits (entries) reads only those
    leaving: tuple[tuple[int, ...], ...]
    entering: tuple[tuple[int, ...], ...]
    # transition index -> the indexes of the states it leaves and enters
    ends: tuple[tuple[int, int], ...]
    # state key -> where its target-gated exits lead (``Graph.target_gated_exits``)
    target_gated_exits: Mapping[str, tuple[str, ...]]
    # transition index -> the state whose grants authorise it (``Graph.gate_state``)
    gate_states: tuple[str | None, ...]
    # the states some transition is gated on, each once, in the order transitions first
    # name them: a rule about gate states looks at each once, not once per transition
    distinct_gate_states: tuple[str, ...]
    advance_gated: tuple[int, ...]  # indexes of the transitions with an advance gate
    # states with an exit someone other than the requester takes
    gated_exits: frozenset[str]
    # state key -> the grants covering it: its own first, then the all-states ones
    grants_by_state: Mapping[str, tuple[Grant, ...]]
    roles: tuple[str, ...]  # state index -> its role
    # state index -> whether entering it undoes what was posted before
    reversing: tuple[bool, ...]
    drafts: tuple[int, ...]  # indexes of the draft states

    @classmethod
    def of(cls, graph: Graph) -> GraphIndex:
        position = {s.key: i for i, s in enumerate(graph.states)}
        exits: list[list[int]] = [[] for _ in graph.states]
        leaving: list[list[int]] = [[] for _ in graph.states]
        entering: list[list[int]] = [[] for _ in graph.states]
        ends: list[tuple[int, int]] = []
        advance_gated: list[int] = []
        gated_exits: set[str] = set()
        forward: dict[str, list[str]] = {}
        for i, t in enumerate(graph.transitions):
            source, target = position[t.from_state], position[t.to_state]
            exits[source].append(target)
            leaving[source].append(i)
            entering[target].append(i)
            ends.append((source, target))
            if t.gate != Gate.REQUESTER:
                gated_exits.add(t.from_state)
                if t.gate == Gate.TARGET:
                    forward.setdefault(t.from_state, []).append(t.to_state)
                elif t.gate == Gate.ADVANCE:
                    advance_gated.append(i)
        target_gated_exits = {key: tuple(targets) for key, targets in forward.items()}

        def target_gated_exits_of(key: str) -> tuple[str, ...]:
            return target_gated_exits.get(key, ())

        gate_states = tuple([gate_state_of(t, target_gated_exits_of) for t in graph.transitions])
        own: dict[str, list[Grant]] = {key: [] for key in position}
        for grant in graph.grants:
            if grant.state is not None:
                own[grant.state].append(grant)
        everywhere = [grant for grant in graph.grants if grant.all_states]
        roles = tuple([s.role for s in graph.states])
        return cls(
            graph=graph,
            position=position,
            # List comprehensions, not generators: this runs on every editor change.
            exits=tuple([tuple(targets) for targets in exits]),
            leaving=tuple([tuple(found) for found in leaving]),
            entering=tuple([tuple(found) for found in entering]),
            ends=tuple(ends),
            target_gated_exits=target_gated_exits,
            gate_states=gate_states,
            distinct_gate_states=tuple([s for s in dict.fromkeys(gate_states) if s is not None]),
            advance_gated=tuple(advance_gated),
            gated_exits=frozenset(gated_exits),
            grants_by_state={key: (*grants, *everywhere) for key, grants in own.items()},
            roles=roles,
            reversing=tuple([role in StateRole.REVERSING for role in roles]),
            drafts=tuple([i for i, role in enumerate(roles) if role == StateRole.DRAFT]),
        )

    @property
    def initial(self) -> int:
        """The index of the initial state; only once rule 1 has found exactly one."""
        [only] = self.drafts
        return only

    def entering_any(self, roles: Collection[str]) -> list[int]:
        """The indexes of the transitions into a state of one of ``roles``, in drawing
        order."""
        found = [
            i
            for state, role in enumerate(self.roles)
            if role in roles
            for i in self.entering[state]
        ]
        found.sort()  # several states' entries interleave in the drawing
        return found
