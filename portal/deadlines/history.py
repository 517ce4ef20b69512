"""The sweep's acts in the document's history: an escalation, a reassignment or a gap is
a decision row like any other — hash-chained, written under the document row's lock,
the chain head moved on the document row — with gate "deadline", nobody as its actor
or authority, and the state unchanged (``row_version`` too: no client's view of the
document is made stale by it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from portal.documents.access import DocumentRecord
from portal.documents.links import append_link
from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.resolution import Gap


@dataclass(frozen=True)
class Climbed:
    """One task's escalation or reassignment, as the decision's resolution records it."""

    from_member: int
    task_id: int
    # "breach" or "escalate_after"
    kind: str
    # The seat reached (None: a gap).
    position_id: int | None
    # Everyone reached: who holds the task from now on.
    members: tuple[int, ...]
    gap: Gap | None
    # Those of ``members`` who held the step already (no new task for them).
    already: tuple[int, ...] = ()

    @property
    def new_holders(self) -> list[int]:
        return sorted(m for m in self.members if m not in self.already)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "from_member": self.from_member,
            "task": self.task_id,
            "kind": self.kind,
            "position_id": self.position_id,
            "members": sorted(self.members),
            "gap": self.gap.to_json() if self.gap is not None else None,
        }
        if self.already:
            data["already"] = sorted(self.already)
        return data


def append_sweep_decision(
    session: Session,
    doc: DocumentRecord,
    *,
    transition: str,
    via: str,
    climbed: Climbed,
    band_floor: Decimal,
    now: datetime,
) -> tuple[int, str]:
    """Append the act to the document's chain and move the head on its row (locked by
    the caller); returns the new head (seq, hash)."""
    row: dict[str, Any] = {
        "org_id": doc.org_id,
        "document_id": doc.id,
        "seq": doc.chain_seq + 1,
        "flow_version_id": doc.flow_version_id,
        "from_state": doc.state,
        "to_state": doc.state,
        "transition": transition,
        "gate": DEADLINE_GATE,
        "actor_id": None,
        "authority_member_id": None,
        "via": via,
        "delegation_id": None,
        "amount": doc.amount,
        "currency": doc.currency,
        "winning_floor": band_floor,
        # Who got new tasks (nobody, for a gap).
        "eligible": climbed.new_holders,
        "resolution": [climbed.to_json()],
        "comment": "",
        "request_id": None,
        "decided_at": now,
        "prev_hash": doc.chain_hash,
    }
    return append_link(session, row)
