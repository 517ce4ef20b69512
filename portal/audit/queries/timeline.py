"""A document's timeline for the auditor: its whole record (``documents.queries.trail``),
the path it took through its flow, the time it spent in each state, and its hash chain
checked — read in one unit of work, for the timeline page and its print view alike.

Admins and auditors only (``require_audit_reader``), whatever page asked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.documents.queries.detail import verify_history
from portal.documents.queries.trail import DocumentTrail, document_trail_in
from portal.domain.actor import Actor, require_audit_reader
from portal.domain.chain import ChainCheck
from portal.domain.timeline import Move, TimeInStates, path_of, time_in_states


@dataclass(frozen=True)
class DocumentTimeline:
    trail: DocumentTrail
    # The decisions that moved the document, in order: the path the diagram highlights.
    path: list[Move]
    time: TimeInStates
    # When it was read (the print view says when it was printed).
    read_at: datetime


def document_timeline(actor: Actor, reference: str) -> DocumentTimeline:
    require_audit_reader(actor)
    with unit_of_work_for(actor) as uow:
        trail = document_trail_in(uow.session, actor, reference)
    now = clock.now()
    moves = moves_of(trail)
    record = trail.record
    # A discarded draft stopped where it was when its requester threw it away; a
    # document in a terminal state stopped when it got there (its last move).
    state = trail.document.graph.state(record.state) if trail.document.graph else None
    finished = state is not None and state.terminal and bool(moves)
    until = record.discarded_at or (max(m.at for m in moves) if finished else now)
    return DocumentTimeline(
        trail=trail,
        path=path_of(moves),
        time=time_in_states(record.created_at, moves, record.state, until, finished=finished),
        read_at=now,
    )


def moves_of(trail: DocumentTrail) -> list[Move]:
    return [
        Move(d["seq"], d["from_state"], d["to_state"], d["decided_at"]) for d in trail.decisions
    ]


@dataclass(frozen=True)
class DocumentCheck:
    reference: str
    check: ChainCheck
    checked_at: datetime


def check_of(timeline: DocumentTimeline) -> DocumentCheck:
    """The chain's check as the timeline read it (it verifies on every read)."""
    return DocumentCheck(timeline.trail.record.reference, timeline.trail.chain, timeline.read_at)


def verify_document(actor: Actor, reference: str) -> DocumentCheck:
    """Recompute the document's hash chain from its stored decisions, now, and check it
    ends at the head its row records (the timeline's "Verify" button)."""
    require_audit_reader(actor)
    check = verify_history(actor, reference)
    return DocumentCheck(reference, check, clock.now())
