"""A graph written as JSON data, as text, and in the one canonical form its digest covers."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TypeAlias

from portal.domain.graph import DocumentField, Grant, Graph, State, Transition
from portal.domain.labels import Labels

FORMAT = 1  # the graph document's own format number, for future migrations of the JSON

# JSON data as this module builds it (read-only views, so a list of strings is one).
Json: TypeAlias = str | int | bool | Sequence["Json"] | Mapping[str, "Json"] | None
JsonObject: TypeAlias = dict[str, Json]


def _labels_json(labels: Labels) -> dict[str, str]:
    return dict(labels)


def _drop_none(data: JsonObject) -> JsonObject:
    return {k: v for k, v in data.items() if v is not None}


def to_json(graph: Graph) -> JsonObject:
    """The graph as plain JSON data. Attributes left out (None) stay out, so
    ``from_json(to_json(g)) == g`` exactly; export ``g.normalised()`` for the full form."""
    return _drop_none(
        {
            "format": FORMAT,
            "kind": graph.kind,
            "labels": _labels_json(graph.labels),
            "posting_order": graph.posting_order,
            # Written only when on: a graph without the setting keeps its digest.
            "exclusive_approval": graph.exclusive_approval or None,
            "fields": [_field_json(f) for f in graph.fields],
            "states": [_state_json(s) for s in graph.states],
            "transitions": [_transition_json(t) for t in graph.transitions],
            "grants": [_grant_json(g) for g in graph.grants],
        }
    )


def _field_json(f: DocumentField) -> JsonObject:
    data: JsonObject = {
        "key": f.key,
        "type": f.type,
        "labels": _labels_json(f.labels),
        "required": f.required,
    }
    if f.choices:
        data["choices"] = [{"key": c.key, "labels": _labels_json(c.labels)} for c in f.choices]
    return data


def _state_json(s: State) -> JsonObject:
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


def _transition_json(t: Transition) -> JsonObject:
    guard: JsonObject | None = None
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


def _grant_json(g: Grant) -> JsonObject:
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


def canonical_json(graph: Graph) -> str:
    """The one byte-exact form of a graph: what the digest covers."""
    return json.dumps(
        to_json(graph.normalised()),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def digest_of(graph: Graph) -> str:
    return hashlib.sha256(canonical_json(graph).encode("utf-8")).hexdigest()
