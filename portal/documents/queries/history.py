"""The record of a document's edits (``DocumentEdit``: its amount, title, description or
fields changed while a draft, and its discarding), the reminders its deadlines sent,
and the one timeline the document page shows: the decisions, the edits and the
reminders in the order they happened."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Protocol, TypeVar

from sqlalchemy import Integer, String, column, select, table
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.db import UtcDateTime
from portal.documents.access import DocumentRecord
from portal.documents.models import DocumentEdit, Task
from portal.domain.graph import BreachAction


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
    is_reminder: ClassVar[bool] = False


@dataclass(frozen=True)
class ReminderEntry:
    """A reminder a deadline sent to a task's holder."""

    id: int
    # "due_soon" (before the deadline) or "breach" (after it)
    kind: str
    member_id: int
    member_name: str
    sent_at: datetime

    is_edit: ClassVar[bool] = False
    is_reminder: ClassVar[bool] = True


# The deadline sweep's record (``deadlines.models.DeadlineEffect``), read here by name:
# the deadlines feature sits above documents, and only these columns are needed.
_EFFECT = table(
    "deadline_effect",
    column("id", Integer),
    column("org_id", Integer),
    column("task_id", Integer),
    column("document_id", Integer),
    column("kind", String),
    column("action", String),
    column("applied_at", UtcDateTime()),
)


class Dated(Protocol):
    """A decision as the timeline orders it."""

    @property
    def decided_at(self) -> datetime: ...


D = TypeVar("D", bound=Dated)
A = TypeVar("A")
B = TypeVar("B")


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


def reminders_in(session: Session, doc: DocumentRecord) -> list[ReminderEntry]:
    """The reminders the document's deadlines sent, oldest first, with whom each
    reached."""
    rows = list(
        session.execute(
            select(_EFFECT.c.id, _EFFECT.c.kind, Task.assignee_id, _EFFECT.c.applied_at)
            .join(Task, (Task.org_id == _EFFECT.c.org_id) & (Task.id == _EFFECT.c.task_id))
            .where(
                _EFFECT.c.org_id == doc.org_id,
                _EFFECT.c.document_id == doc.id,
                # An effect that notified the holder again (others escalated,
                # reassigned, fired a transition, or were superseded and sent nothing).
                _EFFECT.c.action == BreachAction.REMIND,
            )
            .order_by(_EFFECT.c.applied_at, _EFFECT.c.id)
        )
    )
    names = member_names(session, {r.assignee_id for r in rows})
    return [
        ReminderEntry(
            id=r.id,
            kind=r.kind,
            member_id=r.assignee_id,
            member_name=names.get(r.assignee_id, f"#{r.assignee_id}"),
            sent_at=r.applied_at,
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


def interleaved(
    decisions: Sequence[D],
    edits: Sequence[EditEntry],
    reminders: Sequence[ReminderEntry] = (),
) -> list[D | EditEntry | ReminderEntry]:
    """Decisions, edits and reminders in the order they happened. Each list is already
    in its own order (the chain's, the edits' ids, the reminders'); they are merged by
    time. The document row's lock serialises decisions and edits, so two never share
    an instant on a running clock; if they do (a frozen clock), the decision goes
    first, and a reminder goes after what happened at its instant."""
    decided: list[D] = list(decisions)
    edited: list[EditEntry] = list(edits)
    merged = _merged(decided, edited, _decided, _edited)
    out = _merged(merged, list(reminders), _moment, _sent)
    return out


def _decided(entry: Dated) -> datetime:
    return entry.decided_at


def _edited(entry: EditEntry) -> datetime:
    return entry.edited_at


def _sent(entry: ReminderEntry) -> datetime:
    return entry.sent_at


def _moment(entry: Dated | EditEntry) -> datetime:
    return entry.edited_at if isinstance(entry, EditEntry) else entry.decided_at


def _merged(
    first: list[A],
    second: list[B],
    first_at: Callable[[A], datetime],
    second_at: Callable[[B], datetime],
) -> list[A | B]:
    """Two lists in time order merged, ``first`` winning ties."""
    out: list[A | B] = []
    i = j = 0
    while i < len(first) or j < len(second):
        if j == len(second) or (i < len(first) and first_at(first[i]) <= second_at(second[j])):
            out.append(first[i])
            i += 1
        else:
            out.append(second[j])
            j += 1
    return out
