"""The record of a document's edits (``DocumentEdit``: its amount, title, description or
fields changed while a draft, and its discarding), and the one timeline the document
page shows: the decisions and the edits in the order they happened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.documents.access import DocumentRecord
from portal.documents.models import DocumentEdit


@dataclass(frozen=True)
class Change:
    """One value an edit changed, as recorded: ``field`` is ``amount``, ``title``,
    ``description`` or ``fields.<key>``; the values are text (amounts in the chain's
    spelling, ``domain.chain.money_text``), None where there was none."""

    field: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class EditEntry:
    id: int
    # "edit" or "discard"
    kind: str
    actor_id: int
    actor_name: str
    changes: tuple[Change, ...]
    edited_at: datetime

    # Told apart from a decision in the timeline.
    is_edit: ClassVar[bool] = True


class Dated(Protocol):
    """A decision as the timeline orders it."""

    @property
    def decided_at(self) -> datetime: ...


D = TypeVar("D", bound=Dated)


def edits_in(session: Session, doc: DocumentRecord) -> list[EditEntry]:
    """The document's edits, oldest first, with who made each."""
    rows = list(
        session.scalars(
            select(DocumentEdit)
            .where(DocumentEdit.org_id == doc.org_id, DocumentEdit.document_id == doc.id)
            .order_by(DocumentEdit.edited_at, DocumentEdit.id)
        )
    )
    names = member_names(session, {r.actor_id for r in rows})
    return [
        EditEntry(
            id=r.id,
            kind=r.kind,
            actor_id=r.actor_id,
            actor_name=names.get(r.actor_id, f"#{r.actor_id}"),
            changes=tuple(_changes(r.changes)),
            edited_at=r.edited_at,
        )
        for r in rows
    ]


def _changes(recorded: object) -> list[Change]:
    """The recorded changes, read defensively: the column is JSON, and a row written by
    hand (or an older release) must not break the page."""
    if not isinstance(recorded, list):
        return []
    out = []
    for item in recorded:
        if isinstance(item, dict) and isinstance(item.get("field"), str):
            old, new = item.get("old"), item.get("new")
            out.append(
                Change(
                    item["field"],
                    None if old is None else str(old),
                    None if new is None else str(new),
                )
            )
    return out


def interleaved(decisions: Sequence[D], edits: Sequence[EditEntry]) -> list[D | EditEntry]:
    """Decisions and edits in the order they happened. Each list is already in its own
    order (the chain's, the edits' ids); they are merged by time. The document row's
    lock serialises both, so two never share an instant on a running clock; if they do
    (a frozen clock), the decision goes first."""
    out: list[D | EditEntry] = []
    i = j = 0
    while i < len(decisions) or j < len(edits):
        if j == len(edits) or (
            i < len(decisions) and decisions[i].decided_at <= edits[j].edited_at
        ):
            out.append(decisions[i])
            i += 1
        else:
            out.append(edits[j])
            j += 1
    return out
