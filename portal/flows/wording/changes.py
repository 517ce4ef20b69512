"""What publishing the draft would change, worded for the reader: states, transitions
and fields by their labels in the reader's language (what was removed is named from the
version before), grants as sentences with the org chart's names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _

from portal.domain.graph import Grant, Graph
from portal.domain.graph_diff import Changes
from portal.flows.services.pages import DraftChanges
from portal.flows.wording.grants import grant_words

# The graphs to look a key up in, the first one that has it naming it.
Graphs = tuple[Graph | None, ...]
Worded = dict[str, list[dict[str, str]]]


def _first(graphs_seen: Graphs, pick: Callable[[Graph], Any]) -> Any:
    """What ``pick`` finds in the first graph that has it: the draft names what stays,
    the version before names what goes."""
    for graph in graphs_seen:
        found = pick(graph) if graph is not None else None
        if found is not None:
            return found
    return None


def _labelled(item: Any, key: str, locale: str) -> str:
    text = item.labels.text(locale) if item is not None else ""
    return f"{text} ({key})" if text and text != key else key


def state_text(key: str, graphs_seen: Graphs, locale: str) -> str:
    """ "Waiting for the manager (manager_review)"."""
    state = _first(graphs_seen, lambda g: next((s for s in g.states if s.key == key), None))
    return _labelled(state, key, locale)


def field_text(key: str, graphs_seen: Graphs, locale: str) -> str:
    found = _first(graphs_seen, lambda g: next((f for f in g.fields if f.key == key), None))
    return _labelled(found, key, locale)


def transition_text(key: str, graphs_seen: Graphs, locale: str) -> str:
    """ "Approve: Waiting for the manager (manager_review) → Approved (approved)"."""
    found = _first(
        graphs_seen,
        lambda g: next((t for t in g.transitions if f"{t.from_state}.{t.key}" == key), None),
    )
    if found is None:
        return key
    return _(
        "%(action)s: %(source)s → %(target)s",
        action=found.labels.text(locale) or found.key,
        source=state_text(found.from_state, graphs_seen, locale),
        target=state_text(found.to_state, graphs_seen, locale),
    )


def _worded(
    changes: Changes,
    text: Callable[[str, Graphs, str], str],
    found: DraftChanges,
    locale: str,
) -> Worded:
    """Each key with its words; what was removed is named from the version before."""
    now, before = (found.after, found.before), (found.before, found.after)
    return {
        "added": [{"key": k, "text": text(k, now, locale)} for k in changes.added],
        "removed": [{"key": k, "text": text(k, before, locale)} for k in changes.removed],
        "changed": [{"key": k, "text": text(k, now, locale)} for k in changes.changed],
    }


def _grants_worded(found: DraftChanges, locale: str) -> Worded:
    def word(grant: Grant, graphs_seen: Graphs) -> dict[str, str]:
        who = grant_words(grant, found.names)
        if grant.state is None:
            return {"state": "", "text": who}
        where = state_text(grant.state, graphs_seen, locale)
        return {"state": grant.state, "text": _("%(state)s: %(who)s", state=where, who=who)}

    return {
        "added": [word(g, (found.after, found.before)) for g in found.diff.grants.added],
        "removed": [word(g, (found.before, found.after)) for g in found.diff.grants.removed],
    }


def publish_summary(found: DraftChanges, locale: str) -> dict[str, Any]:
    """The editor's publish confirmation: what changes, section by section."""
    change = found.diff
    return {
        "any": change.any,
        "flow_changed": change.flow_changed,
        "states": _worded(change.states, state_text, found, locale),
        "transitions": _worded(change.transitions, transition_text, found, locale),
        "grants": _grants_worded(found, locale),
        "fields": _worded(change.fields, field_text, found, locale),
    }
