"""Every document's hash chain in an organization, read in batches and checked
(``domain.chain.verify_chain``): the audit's pass over the whole history.

Built for organizations with tens of thousands of documents and hundreds of thousands
of decisions: documents are taken in keyset order (by id), a batch at a time, and a
batch's heads and decisions come back in **one** statement, ordered by document and
sequence, as plain rows (Core, no ORM objects). One statement sees one snapshot, so a
chain extended while the pass runs is read either before or after that decision —
never as a head that disagrees with its decisions (which would look broken). Only one
batch is held in memory at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.core.db import table_of
from portal.documents.models import Decision, Document
from portal.domain.chain import CHAINED_FIELDS, ChainCheck, verify_chain

# Documents per statement: about 5 decisions each, so a few thousand rows a round trip.
CHAIN_BATCH = 500

_DOC = table_of(Document)
_DEC = table_of(Decision)
_CHAIN_COLUMNS = [_DEC.c[name] for name in (*CHAINED_FIELDS, "hash")]


@dataclass(frozen=True)
class CheckedChain:
    """One document's chain as the pass found it."""

    document_id: int
    reference: str
    check: ChainCheck


def count_chains_in(session: Session, org_id: int) -> int:
    """How many documents (so chains) the organization holds: the pass's total."""
    return int(
        session.execute(
            select(func.count()).select_from(_DOC).where(_DOC.c.org_id == org_id)
        ).scalar_one()
    )


def _batch_statement(org_id: int, after: int, size: int) -> Any:
    """The next ``size`` documents after id ``after``, each with its decisions (none:
    one row of NULLs), heads and decisions in one statement."""
    docs = (
        select(_DOC.c.id, _DOC.c.reference, _DOC.c.chain_seq, _DOC.c.chain_hash)
        .where(_DOC.c.org_id == org_id, _DOC.c.id > after)
        .order_by(_DOC.c.id)
        .limit(size)
        .cte("docs")
    )
    return (
        select(
            docs.c.id.label("doc_id"),
            docs.c.reference.label("doc_reference"),
            docs.c.chain_seq.label("doc_chain_seq"),
            docs.c.chain_hash.label("doc_chain_hash"),
            *_CHAIN_COLUMNS,
        )
        .select_from(
            docs.outerjoin(_DEC, (_DEC.c.org_id == org_id) & (_DEC.c.document_id == docs.c.id))
        )
        .order_by(docs.c.id, _DEC.c.seq)
    )


def _checked(doc: Any, decisions: list[Any]) -> CheckedChain:
    return CheckedChain(
        doc.doc_id,
        doc.doc_reference,
        verify_chain(decisions, doc.doc_chain_seq, doc.doc_chain_hash),
    )


def check_chains_after(
    session: Session, org_id: int, after: int = 0, size: int = CHAIN_BATCH
) -> list[CheckedChain]:
    """Check the chains of the next ``size`` documents (by id) after ``after``; an empty
    list when none are left. The caller keeps the last id as its keyset."""
    out: list[CheckedChain] = []
    current: Any = None
    decisions: list[Any] = []
    # Fetched whole: a batch is a few thousand rows, and one fetch beats one per row.
    for row in session.execute(_batch_statement(org_id, after, size)).all():
        if current is None or row.doc_id != current.doc_id:
            if current is not None:
                out.append(_checked(current, decisions))
            current, decisions = row, []
        if row.seq is not None:  # a document without decisions has one row of NULLs
            decisions.append(row._mapping)
    if current is not None:
        out.append(_checked(current, decisions))
    return out


def iter_checked_chains(
    session: Session, org_id: int, size: int = CHAIN_BATCH
) -> Iterator[list[CheckedChain]]:
    """Every chain of the organization, a checked batch at a time, in document order
    (all in the session's transaction: see ``audit.services.verification`` for how a
    pass cuts its transactions)."""
    after = 0
    while batch := check_chains_after(session, org_id, after, size):
        yield batch
        after = batch[-1].document_id
