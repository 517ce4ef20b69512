"""A document's history as its pages tell it: the decisions in words (who, on whose
behalf, who could have decided, what a deadline did), the record of its edits
(``DocumentEdit``: its amount, title, description or fields changed while a draft, and
its discarding), the reminders its deadlines sent, and the one timeline the document
page shows: the decisions, the edits and the reminders in the order they happened."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, Protocol, TypeVar

from sqlalchemy import Integer, String, bindparam, column, select, table
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names_of
from portal.core.db import UtcDateTime, storable_ids, table_of
from portal.documents.access import DocumentRecord
from portal.documents.models import Decision, DocumentEdit, Task
from portal.documents.queries.handovers import (
    DEADLINE_GATE,
    Handover,
    handover_member_ids,
    handovers_from,
    handovers_of,
    named_in,
)
from portal.documents.queries.on_behalf import CoverWindow, cover_windows_in
from portal.domain.graph import BreachAction

_DECISION = table_of(Decision)


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


@dataclass(frozen=True)
class HistoryEntry:
    seq: int
    from_state: str
    to_state: str
    transition: str
    actor_id: int | None
    actor_name: str | None
    # Whose authority was relied on, when it was not the actor's own (a delegator).
    authority_name: str | None
    via: str
    comment: str
    decided_at: datetime
    eligible: list[int]
    # The approver set considered, by name, as it stood then.
    eligible_names: list[str]
    hash: str
    # The amount the decision was taken on, as it stood then.
    amount: Decimal
    currency: str
    # "deadline" for what a passing deadline did (``queries.handovers``).
    gate: str = ""
    # What a deadline decision did to each task (empty for any other decision).
    handovers: tuple[Handover, ...] = ()
    # The cover a decision was taken under ("on behalf of … (cover 8–19 Dec: leave)").
    cover: CoverWindow | None = None

    # Told apart from an edit or a reminder in the timeline.
    is_edit: ClassVar[bool] = False
    is_reminder: ClassVar[bool] = False


def decisions_in(session: Session, doc: DocumentRecord) -> list[Decision]:
    """The document's decisions in chain order, every column (the audit reads them all)."""
    return list(
        session.scalars(
            select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
        )
    )


# Members' names by id in one organization, built once (``member_names`` builds its
# statement on every call and runs it through the ORM: a page pays for that per read).
_MEMBERS = member_names_of(bindparam("org"))
_NAMES = select(_MEMBERS.c.member_id, _MEMBERS.c.name).where(
    _MEMBERS.c.member_id.in_(bindparam("ids", expanding=True))
)


def names_in(session: Session, org_id: int, member_ids: Iterable[int | None]) -> dict[int, str]:
    """Display name by membership id; ids that are None or unknown are left out."""
    ids = storable_ids(member_ids)
    if not ids:
        return {}
    rows = session.connection().execute(_NAMES, {"org": org_id, "ids": sorted(ids)})
    return {member_id: name for member_id, name in rows}


# The same as rows, for the page: every column, with no objects to build. Built once.
_DECISION_ROWS = (
    select(_DECISION)
    .where(_DECISION.c.org_id == bindparam("org"), _DECISION.c.document_id == bindparam("document"))
    .order_by(_DECISION.c.seq)
)


def decision_rows_in(session: Session, doc: DocumentRecord) -> list[Any]:
    """``decisions_in`` as rows of the decision table (the same attributes)."""
    return list(
        session.connection().execute(_DECISION_ROWS, {"org": doc.org_id, "document": doc.id})
    )


def history_member_ids(rows: Sequence[Any]) -> set[int | None]:
    """Everyone the decisions name: who took each, on whose authority, who could have,
    and whom a deadline or a holder handed a task to, and from whom."""
    ids = handover_member_ids(handovers_from(rows))
    for r in rows:
        ids.add(r.actor_id)
        ids.add(r.authority_member_id)
        ids.update(r.eligible)
    return ids


def history_in(
    session: Session, rows: Sequence[Any], names: Mapping[int, str] | None = None
) -> list[HistoryEntry]:
    """The decisions (``Decision`` objects or rows) in words: who, on whose behalf, the
    approver set by name, what a deadline did. ``names``: the caller's, when it has read
    them for everyone the decisions and their handovers name."""
    org_id = rows[0].org_id if rows else 0
    if names is None:
        names = names_in(session, org_id, history_member_ids(rows))
    covers = cover_windows_in(session, org_id, {r.delegation_id for r in rows})
    return [
        HistoryEntry(
            seq=r.seq,
            from_state=r.from_state,
            to_state=r.to_state,
            transition=r.transition,
            actor_id=r.actor_id,
            actor_name=names.get(r.actor_id) if r.actor_id else None,
            authority_name=(
                names.get(r.authority_member_id)
                if r.authority_member_id and r.authority_member_id != r.actor_id
                else None
            ),
            via=r.via,
            comment=r.comment,
            decided_at=r.decided_at,
            eligible=list(r.eligible),
            eligible_names=[names.get(m, f"#{m}") for m in r.eligible],
            hash=r.hash,
            amount=r.amount,
            currency=r.currency,
            gate=r.gate,
            handovers=tuple(
                named_in(
                    session,
                    org_id,
                    handovers_of(r.seq, r.decided_at, r.transition, r.resolution),
                    names,
                )
                if r.gate == DEADLINE_GATE
                else ()
            ),
            cover=covers.get(r.delegation_id) if r.delegation_id is not None else None,
        )
        for r in rows
    ]


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


_EDIT = table_of(DocumentEdit)
_TASK = table_of(Task)

# The page's reads, built once: a document's edits, and the reminders its deadlines sent.
_EDITS = (
    select(_EDIT.c.id, _EDIT.c.kind, _EDIT.c.actor_id, _EDIT.c.changes, _EDIT.c.edited_at)
    .where(_EDIT.c.org_id == bindparam("org"), _EDIT.c.document_id == bindparam("document"))
    .order_by(_EDIT.c.edited_at, _EDIT.c.id)
)
_REMINDERS = (
    select(_EFFECT.c.id, _EFFECT.c.kind, _TASK.c.assignee_id, _EFFECT.c.applied_at)
    .join(_TASK, (_TASK.c.org_id == _EFFECT.c.org_id) & (_TASK.c.id == _EFFECT.c.task_id))
    .where(
        _EFFECT.c.org_id == bindparam("org"),
        _EFFECT.c.document_id == bindparam("document"),
        # An effect that notified the holder again (others escalated, reassigned, fired
        # a transition, or were superseded and sent nothing).
        _EFFECT.c.action == BreachAction.REMIND,
    )
    .order_by(_EFFECT.c.applied_at, _EFFECT.c.id)
)


def edits_in(session: Session, doc: DocumentRecord) -> list[EditEntry]:
    """The document's edits, oldest first, with who made each."""
    rows = list(session.connection().execute(_EDITS, {"org": doc.org_id, "document": doc.id}))
    names = names_in(session, doc.org_id, {r.actor_id for r in rows})
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
    rows = list(session.connection().execute(_REMINDERS, {"org": doc.org_id, "document": doc.id}))
    names = names_in(session, doc.org_id, {r.assignee_id for r in rows})
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
