"""Documents: creating one in its flow's draft state, editing it while it is there (each
edit recorded, old -> new), and throwing away a draft that was never submitted.

Each public function is one unit of work. Moving a document through its flow is
``documents.transitions``; reading it is ``documents.queries``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.queries import base_currency_in, member_names, today_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.documents.access import (
    DocumentRecord,
    DocumentView,
    document_view,
    document_view_in,
    load_visible,
    record_of,
)
from portal.documents.models import Document, DocumentEdit, ReferenceCounter
from portal.domain.actor import Actor
from portal.domain.chain import GENESIS_HASH
from portal.domain.editing import check_discardable, check_editable, edit_changes
from portal.domain.errors import DomainError, NotFound
from portal.domain.fields import check_fields, check_title
from portal.domain.money import check_amount
from portal.flows.queries import current_version_in, version_in

PREFIXES = {"expense_claim": "EXP", "purchase_request": "PUR", "leave_request": "LVE"}


def reference_prefix(kind: str) -> str:
    """EXP for expense claims; otherwise the initials (or first letters) of the kind."""
    if kind in PREFIXES:
        return PREFIXES[kind]
    words = [w for w in kind.split("_") if w]
    letters = "".join(w[0] for w in words) if len(words) > 1 else kind
    return letters[:3].upper()


def _next_reference(session: Session, prefix: str, year: int) -> str:
    """The next number for (prefix, year), taken under the counter row's lock: a
    concurrent creation waits, and a rolled-back one gives its number back."""
    counter = session.scalars(
        select(ReferenceCounter)
        .where(ReferenceCounter.prefix == prefix, ReferenceCounter.year == year)
        .with_for_update()
    ).first()
    if counter is None:
        try:
            with session.begin_nested():
                session.add(ReferenceCounter(prefix=prefix, year=year, last_number=0))
        except IntegrityError:
            pass  # a concurrent first creation made the row: take it, under its lock
        counter = session.scalars(
            select(ReferenceCounter)
            .where(ReferenceCounter.prefix == prefix, ReferenceCounter.year == year)
            .with_for_update()
        ).one()
    counter.last_number += 1
    session.flush()
    return f"{prefix}-{year}-{counter.last_number:05d}"


def create_document(
    actor: Actor,
    *,
    kind: str,
    title: str,
    amount: Decimal,
    currency: str | None = None,
    description: str = "",
    fields: Mapping[str, object] | None = None,
) -> DocumentView:
    """A new document in its flow's draft state, pinned to the current version."""
    title = check_title(title)
    now = clock.now()
    with unit_of_work_for(actor) as uow:
        s = uow.session
        base = base_currency_in(s, actor.org_id)
        if currency is not None and currency.strip().upper() != base:
            raise DomainError(
                "amount_currency_mismatch", field="currency", currency=currency[:8], base=base
            )
        # At the currency's decimals, or refused: the value stored is the value shown.
        amount = check_amount(amount, base)
        try:
            version_id, version = current_version_in(s, actor.org_id, kind)
        except NotFound:
            raise DomainError("unknown_flow", field="kind", kind=kind[:64]) from None
        initial = version.graph.initial_state()
        assert initial is not None  # a published graph has exactly one draft state
        values = check_fields(version.graph, fields or {}, currency=base)
        doc = Document(
            kind=kind,
            # Numbered by the organization's year: EXP-2027-… from its New Year's midnight.
            reference=_next_reference(s, reference_prefix(kind), today_in(s, actor).year),
            title=title,
            description=description.strip(),
            amount=amount,
            currency=base,
            fields=values,
            requester_id=actor.member_id,
            flow_version_id=version_id,
            version=version.version,
            state=initial.key,
            state_entered_at=now,
            dispute_raiser_id=None,
            # The chain starts empty; stated here rather than left to the column
            # defaults, so the new row is known without reading it back.
            row_version=1,
            chain_seq=0,
            chain_hash=GENESIS_HASH,
            created_at=now,
            updated_at=now,
        )
        s.add(doc)
        s.flush()
        name = member_names(s, [actor.member_id]).get(actor.member_id, "")
        return document_view(record_of(doc), name, version.graph)


def update_document(
    actor: Actor,
    reference: str,
    *,
    title: str | None = None,
    description: str | None = None,
    amount: Decimal | None = None,
    fields: Mapping[str, object] | None = None,
    request_id: str | None = None,
) -> DocumentView:
    """Edit a draft: only its requester may, and only while it is in its draft state
    (``domain.editing``), first or back for rework. What changed is recorded in the
    same transaction (one ``DocumentEdit``, old -> new); an edit that changes nothing
    writes nothing."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        loaded = load_visible(s, actor, reference, lock=True)
        doc = loaded.doc
        graph = version_in(s, actor.org_id, doc.kind, doc.version).graph
        check_editable(graph, doc.state, requester=doc.requester_id, member=actor.member_id)
        values: dict[str, Any] = {}
        if title is not None:
            values["title"] = check_title(title)
        if description is not None:
            values["description"] = description.strip()
        if amount is not None:
            values["amount"] = check_amount(amount, doc.currency)
        if fields is not None:
            values["fields"] = check_fields(graph, fields, currency=doc.currency)
        changes = edit_changes(
            {"amount": doc.amount, "title": doc.title, "description": doc.description},
            values,
            fields_before=doc.fields,
            fields_after=values.get("fields"),
        )
        if not changes:
            return document_view_in(s, loaded)
        now = clock.now()
        values["updated_at"] = now
        s.execute(update(Document).where(Document.id == doc.id).values(**values))
        s.add(_edit(doc, actor, "edit", changes, request_id, now))
        return document_view_in(s, loaded.changed(**values))


def _edit(
    doc: DocumentRecord,
    actor: Actor,
    kind: str,
    changes: list[dict[str, str | None]],
    request_id: str | None,
    now: datetime,
) -> DocumentEdit:
    return DocumentEdit(
        org_id=doc.org_id,
        document_id=doc.id,
        actor_id=actor.member_id,
        kind=kind,
        changes=changes,
        request_id=request_id,
        edited_at=now,
    )


@dataclass(frozen=True)
class Discarded:
    reference: str
    title: str


def discard_draft(actor: Actor, reference: str, *, request_id: str | None = None) -> Discarded:
    """Throw away a draft its requester no longer wants: only theirs, and only while it
    has never been submitted (``domain.editing.check_discardable``). The row stays, so
    its reference stays taken and the numbering shows no gap; it is marked discarded,
    the discarding is recorded (a ``DocumentEdit`` of kind ``discard``), and from then
    on it is listed nowhere. A second discarding meets ``document_discarded``."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        doc = load_visible(s, actor, reference, lock=True).doc
        graph = version_in(s, actor.org_id, doc.kind, doc.version).graph
        check_discardable(
            graph,
            doc.state,
            requester=doc.requester_id,
            member=actor.member_id,
            decisions=doc.chain_seq,
        )
        now = clock.now()
        s.execute(
            update(Document)
            .where(Document.id == doc.id)
            .values(
                discarded_at=now,
                discarded_by=actor.member_id,
                row_version=doc.row_version + 1,
                updated_at=now,
            )
        )
        s.add(_edit(doc, actor, "discard", [], request_id, now))
        return Discarded(doc.reference, doc.title)
