"""What publishing the draft would change, worded for the reader: states, transitions
and fields by their labels in the reader's language (what was removed is named from the
version before), grants as sentences with the org chart's names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
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


def _settings_worded(found: DraftChanges) -> Worded:
    """The flow's settings that change, each a sentence (shaped like the other parts,
    as changes)."""
    turned = found.diff.exclusive_approval
    if turned is None:
        return {"added": [], "removed": [], "changed": []}
    if turned:
        text = _("Exclusive approval turned on: nobody decides more than one step of a document.")
    else:
        text = _(
            "Exclusive approval turned off: one person may decide several steps of a document."
        )
    return {"added": [], "removed": [], "changed": [{"key": "exclusive_approval", "text": text}]}


def _labels_only(before: Any, after: Any, **ignored: Any) -> bool:
    """Whether two versions of one item differ in their labels and nothing else (nor
    in ``ignored``: where it is drawn)."""
    if before is None or after is None or before.labels == after.labels:
        return False
    return bool(replace(before, labels=after.labels, **ignored) == after)


def _relabelled(found: DraftChanges, locale: str) -> list[tuple[str, str, str]]:
    """(part, key, sentence) for each state, transition and field whose only change is
    its labels, and the flow's own name: "Submitted → Sent for review"."""
    if found.before is None:
        return []
    old, new = found.before.normalised(), found.after.normalised()
    out: list[tuple[str, str, str]] = []

    def said(part: str, key: str, before: Any, after: Any) -> None:
        out.append(
            (
                part,
                key,
                _(
                    "%(before)s → %(after)s",
                    before=before.labels.text(locale) or key,
                    after=after.labels.text(locale) or key,
                ),
            )
        )

    if old.labels != new.labels:
        said("flow", "", old, new)
    for s in new.states:
        was = old.state(s.key)
        if _labels_only(was, s, x=s.x, y=s.y):
            said("states", s.key, was, s)
    for t in new.transitions:
        was_t = old.transition(t.from_state, t.key)
        if _labels_only(was_t, t, vertices=t.vertices):
            said("transitions", f"{t.from_state}.{t.key}", was_t, t)
    for f in new.fields:
        if _labels_only(old.field(f.key), f):
            said("fields", f.key, old.field(f.key), f)
    return out


def publish_summary(found: DraftChanges, locale: str) -> dict[str, Any]:
    """The editor's publish confirmation: what changes, section by section."""
    change = found.diff
    summary: dict[str, Any] = {
        "any": change.any,
        "flow_changed": change.flow_changed,
        "states": _worded(change.states, state_text, found, locale),
        "transitions": _worded(change.transitions, transition_text, found, locale),
        "grants": _grants_worded(found, locale),
        "fields": _worded(change.fields, field_text, found, locale),
        "settings": _settings_worded(found),
    }
    # A change of labels alone is said as what they read before and after, once: under
    # "Labels changed", not again among the changed states, transitions and fields.
    relabelled = _relabelled(found, locale)
    for part, key, _text in relabelled:
        if part != "flow":
            changed = summary[part]["changed"]
            summary[part]["changed"] = [c for c in changed if c["key"] != key]
    summary["labels"] = {
        "added": [],
        "removed": [],
        "changed": [{"key": key or part, "text": text} for part, key, text in relabelled],
    }
    return summary


# The parts of a summary in the order a confirmation lists them.
SUMMARY_PARTS = ("labels", "states", "transitions", "grants", "fields", "settings")


def summary_sections(summary: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """A summary as a page lists it: each part that has changes, with each change's
    kind (added, removed, changed) and words."""
    sections = []
    for part in SUMMARY_PARTS:
        found = summary.get(part) or {}
        items = [
            (kind, item["text"])
            for kind in ("added", "removed", "changed")
            for item in found.get(kind, [])
        ]
        if items:
            sections.append((part, items))
    return sections
