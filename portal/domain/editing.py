"""Who may change a document's own values, and when: its requester, while it is in its
flow's draft state. The amount, like everything else, is frozen once it leaves.

Also what an edit changed (old -> new, as text, for the record of edits), and who may
throw a draft away: its requester, only before it was ever submitted."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from portal.domain.authority import TransitionRefused
from portal.domain.chain import money_text
from portal.domain.errors import DomainError
from portal.domain.graph import Graph, StateRole


def check_requester(*, requester: int, member: int | None) -> None:
    """Refuses ``not_requester`` for anyone but the document's requester."""
    if member != requester:
        raise TransitionRefused("not_requester")


def check_editable(graph: Graph, state: str, *, requester: int, member: int | None) -> None:
    """Refuses ``not_requester`` for anyone but the requester, then ``document_frozen``
    once the document has left its draft state."""
    check_requester(requester=requester, member=member)
    if not is_draft(graph, state):
        raise DomainError("document_frozen", state=state)


def is_draft(graph: Graph, state: str) -> bool:
    found = graph.state(state)
    return found is not None and found.role == StateRole.DRAFT


def may_edit(graph: Graph, state: str, *, requester: int, member: int | None) -> bool:
    """Whether ``check_editable`` would let this member edit now."""
    return member == requester and is_draft(graph, state)


# --- what an edit changed --------------------------------------------------------------

# The document's own columns an edit may change, in the order a change is told: the
# amount first (it decides who approves), then the words. Declared fields follow as
# ``fields.<key>``.
EDITED_COLUMNS = ("amount", "title", "description")


def value_text(value: object) -> str | None:
    """A recorded value as text: amounts in the chain's one spelling (``money_text``),
    yes/no as ``true``/``false``, anything else as it is stored; absent as None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return money_text(value)
    return str(value)


def edit_changes(
    before: Mapping[str, object],
    after: Mapping[str, object],
    *,
    fields_before: Mapping[str, object],
    fields_after: Mapping[str, object] | None,
) -> list[dict[str, str | None]]:
    """``[{"field", "old", "new"}, …]`` for what an edit actually changes: the columns
    of ``EDITED_COLUMNS`` present in ``after`` (which holds only what the edit sets),
    then each declared field whose value differs (``fields_after`` None: the fields were
    not edited). Values as ``value_text``; empty when nothing changed."""
    changes: list[dict[str, str | None]] = []
    for column in EDITED_COLUMNS:
        if column in after and after[column] != before.get(column):
            changes.append(_change(column, before.get(column), after[column]))
    if fields_after is not None:
        keys = [*fields_before, *(k for k in fields_after if k not in fields_before)]
        for key in keys:
            old, new = fields_before.get(key), fields_after.get(key)
            if value_text(old) != value_text(new):
                changes.append(_change(f"fields.{key}", old, new))
    return changes


def _change(field: str, old: object, new: object) -> dict[str, str | None]:
    return {"field": field, "old": value_text(old), "new": value_text(new)}


# --- throwing a draft away ---------------------------------------------------------------


def check_discardable(
    graph: Graph, state: str, *, requester: int, member: int | None, decisions: int
) -> None:
    """Refuses ``not_requester`` for anyone but the requester, then
    ``discard_after_submission`` for a document that has ever left its initial draft
    (``decisions``: how many it has had). Once submitted, a document stays on the
    record and ends through its flow (withdrawn, cancelled)."""
    check_requester(requester=requester, member=member)
    if not never_submitted(graph, state, decisions=decisions):
        raise DomainError("discard_after_submission")


def never_submitted(graph: Graph, state: str, *, decisions: int) -> bool:
    initial = graph.initial_state()
    return decisions == 0 and initial is not None and initial.key == state


def may_discard(
    graph: Graph, state: str, *, requester: int, member: int | None, decisions: int
) -> bool:
    """Whether ``check_discardable`` would let this member discard the document now."""
    return member == requester and never_submitted(graph, state, decisions=decisions)
