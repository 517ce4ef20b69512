"""One document's complete record as JSON, for an outside tool to re-verify: the
document, every decision with every chained field exactly as the chain hashed it (and
its ``prev_hash`` and ``hash``), the chain's head on the document row, the edits, the
verification result when it was exported, and how the hashes are built
(``HASH_CONSTRUCTION``; the README says the same in prose, with a verifier).

The export is recorded (``record_export_in``, kind ``document``) in the transaction
that read the record, so what was taken, by whom and when is on file."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from portal.audit.models import ExportKind
from portal.audit.services.recording import record_export_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.documents.queries.trail import DocumentTrail, document_trail_in
from portal.domain.actor import Actor, require_audit_reader
from portal.domain.chain import CHAINED_FIELDS, GENESIS_HASH, chained_record, money_text

FORMAT = "countersign.document-record"
FORMAT_VERSION = 1

# How each decision's hash is built, in the record itself: enough to write a verifier
# without reading this code (``domain.chain`` is the implementation).
HASH_CONSTRUCTION: dict[str, Any] = {
    "version": 1,
    "algorithm": "SHA-256, hex digest in lower case",
    "genesis": GENESIS_HASH,
    "fields": list(CHAINED_FIELDS),
    "body": (
        "The decision's values of exactly the listed fields (prev_hash among them), as "
        "given in the record, serialised as JSON with the keys sorted, no whitespace "
        "(separators ',' and ':') and every non-ASCII character escaped as \\uXXXX "
        "(Python: json.dumps(values, sort_keys=True, separators=(',', ':')))."
    ),
    "input": "prev_hash + '\\n' + body, encoded as UTF-8",
    "money": "amount and winning_floor as decimal text with exactly four decimals "
    "(e.g. '480.0000'); winning_floor may be null",
    "time": "decided_at in ISO 8601 with microseconds and the UTC offset "
    "(e.g. '2026-12-02T07:04:05.123456+00:00')",
    "chain": (
        "Decisions in seq order 1, 2, …: the first has prev_hash = genesis, each next "
        "prev_hash equals the hash before it, each hash is SHA-256 of its input; the "
        "last seq and hash equal the document's chain_head (no decision missing at the end)."
    ),
}


@dataclass(frozen=True)
class DocumentRecordExport:
    reference: str
    filename: str
    body: dict[str, Any]


def export_document_record(
    actor: Actor, reference: str, *, request_id: str | None = None
) -> DocumentRecordExport:
    require_audit_reader(actor)
    with unit_of_work_for(actor) as uow:
        trail = document_trail_in(uow.session, actor, reference)
        exported_at = clock.now()
        record_export_in(
            uow.session,
            actor,
            ExportKind.DOCUMENT,
            rows=len(trail.decisions),
            reference=trail.record.reference,
            request_id=request_id,
        )
    body = record_body(trail, actor, exported_at)
    return DocumentRecordExport(
        trail.record.reference, f"{trail.record.reference}-record.json", body
    )


def record_body(trail: DocumentTrail, actor: Actor, exported_at: datetime) -> dict[str, Any]:
    """The record as JSON-ready values: money as strings, times in ISO 8601 with offset."""
    doc, view = trail.record, trail.document
    check = trail.chain
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": iso(exported_at),
        "exported_by": {"member_id": actor.member_id},
        "organization": {"id": doc.org_id, "slug": actor.org_slug},
        "document": {
            "id": doc.id,
            "reference": doc.reference,
            "kind": doc.kind,
            "title": doc.title,
            "description": doc.description,
            "amount": money_text(doc.amount),
            "currency": doc.currency,
            "fields": _plain(doc.fields),
            "requester_id": doc.requester_id,
            "requester_name": view.requester_name,
            "flow_version_id": doc.flow_version_id,
            "flow_version": doc.version,
            "state": doc.state,
            "state_entered_at": iso(doc.state_entered_at),
            "created_at": iso(doc.created_at),
            "updated_at": iso(doc.updated_at),
            "discarded_at": iso(doc.discarded_at) if doc.discarded_at else None,
        },
        "chain_head": {"seq": doc.chain_seq, "hash": doc.chain_hash},
        "hash_construction": HASH_CONSTRUCTION,
        "decisions": [{**chained_record(d), "hash": d["hash"]} for d in trail.decisions],
        "edits": [
            {
                "id": e.id,
                "kind": e.kind,
                "actor_id": e.actor_id,
                "changes": _plain(e.changes),
                "request_id": e.request_id,
                "edited_at": iso(e.edited_at),
            }
            for e in trail.edits
        ],
        # Names are not part of the chain (a member may change theirs): a reader's aid.
        "members": {str(k): v for k, v in sorted(trail.members.items())},
        "verification": {
            "ok": check.ok,
            "decisions": check.decisions,
            "first_bad_seq": check.broken_at,
            "checked_at": iso(exported_at),
        },
    }


def iso(moment: datetime) -> str:
    """ISO 8601 with the offset (stored times are UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def _plain(value: Any) -> Any:
    """JSON values as stored; a Decimal (a money field) as its text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    return value
