"""One document's whole record, as an auditor reads it: the document with its pinned
flow, every decision with every column as stored (what the hash chain covers, and the
hash), the history in words, the edits and reminders in the order they happened, the
names of everyone the record mentions, and the chain checked against the document's
head — in one read, so the page, the print view and the exported record agree.

Who may read it is the caller's to decide (the audit's services require an auditor or
an admin); the document is loaded as ``load_visible`` allows, discarded drafts included.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.documents.access import DocumentRecord, DocumentView, document_view_in, load_visible
from portal.documents.models import Decision, DocumentEdit
from portal.documents.queries.detail import (
    HistoryEntry,
    chain_check_of,
    decisions_in,
    history_in,
)
from portal.documents.queries.history import (
    EditEntry,
    ReminderEntry,
    edits_in,
    interleaved,
    reminders_in,
)
from portal.domain.actor import Actor, SystemActor
from portal.domain.chain import CHAINED_FIELDS, ChainCheck
from portal.orgchart.queries import seat_labels_in

# Every stored column of a decision the record carries: what the chain hashes, and the
# hash it carries.
RECORDED_FIELDS = (*CHAINED_FIELDS, "hash")


@dataclass(frozen=True)
class RecordedEdit:
    """An edit's row as stored (the page shows ``EditEntry``; the record keeps all)."""

    id: int
    kind: str
    actor_id: int
    changes: list[dict[str, Any]]
    request_id: str | None
    edited_at: datetime


@dataclass(frozen=True)
class DocumentTrail:
    document: DocumentView
    record: DocumentRecord
    # Each decision's columns as stored, in chain order (``RECORDED_FIELDS``): values
    # in their stored types (Decimal amounts, UTC datetimes, JSON lists).
    decisions: list[dict[str, Any]]
    # The same decisions in words (names, the cover they relied on, what a deadline did).
    history: list[HistoryEntry]
    # Decisions, edits and reminders in the order they happened.
    timeline: list[HistoryEntry | EditEntry | ReminderEntry]
    edits: list[RecordedEdit]
    chain: ChainCheck
    # Names of every member the decisions mention (actors, authorities, the approver
    # sets, the recorded resolutions) and of the seats the resolutions name.
    members: dict[int, str]
    seats: dict[int, str]


def document_trail_in(
    session: Session, actor: Actor | SystemActor, reference: str
) -> DocumentTrail:
    loaded = load_visible(session, actor, reference, discarded=True)
    doc = loaded.doc
    rows = decisions_in(session, doc)
    history = history_in(session, rows)
    member_ids, seat_ids = _mentioned(rows)
    return DocumentTrail(
        document=document_view_in(session, loaded),
        record=doc,
        decisions=[{name: getattr(r, name) for name in RECORDED_FIELDS} for r in rows],
        history=history,
        timeline=interleaved(history, edits_in(session, doc), reminders_in(session, doc)),
        edits=_recorded_edits(session, doc),
        chain=chain_check_of(doc, rows),
        members=member_names(session, member_ids),
        seats=seat_labels_in(session, seat_ids),
    )


def _mentioned(rows: list[Decision]) -> tuple[set[int], set[int]]:
    """The members and seats the decisions name, their recorded resolutions included
    (read defensively: the column is JSON)."""
    members: set[int] = set()
    seats: set[int] = set()
    for r in rows:
        members.update(m for m in (r.actor_id, r.authority_member_id) if m is not None)
        members.update(m for m in r.eligible if isinstance(m, int))
        for item in r.resolution if isinstance(r.resolution, list) else ():
            if not isinstance(item, dict):
                continue
            found = item.get("members")
            if isinstance(found, list):
                members.update(m for m in found if isinstance(m, int))
            if isinstance(item.get("position_id"), int):
                seats.add(item["position_id"])
    return members, seats


def _recorded_edits(session: Session, doc: DocumentRecord) -> list[RecordedEdit]:
    rows = session.execute(
        select(
            DocumentEdit.id,
            DocumentEdit.kind,
            DocumentEdit.actor_id,
            DocumentEdit.changes,
            DocumentEdit.request_id,
            DocumentEdit.edited_at,
        )
        .where(DocumentEdit.org_id == doc.org_id, DocumentEdit.document_id == doc.id)
        .order_by(DocumentEdit.edited_at, DocumentEdit.id)
    )
    return [
        RecordedEdit(r.id, r.kind, r.actor_id, list(r.changes or []), r.request_id, r.edited_at)
        for r in rows
    ]
