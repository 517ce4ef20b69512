"""The document's hash chain extended beside a transition: a handover, the deadline
sweep's escalation or reassignment. The row links to the head kept on the document row
(locked by the caller), and the head moves on with it; the state and ``row_version``
stay as they are, so nobody's view of the document is made stale by it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm import Session

from portal.core.db import table_of
from portal.documents.models import Decision, Document
from portal.domain.chain import link_hash

_DOC = table_of(Document)
_APPEND = insert(table_of(Decision))
_MOVE_HEAD = (
    update(_DOC)
    .where(_DOC.c.org_id == bindparam("b_org"), _DOC.c.id == bindparam("b_id"))
    .values(chain_seq=bindparam("chain_seq"), chain_hash=bindparam("chain_hash"))
)


def append_link(session: Session, row: dict[str, Any]) -> tuple[int, str]:
    """Hash ``row`` (its ``prev_hash`` the head read under the lock), append it and move
    the head on the document row; returns the new head (seq, hash)."""
    row["hash"] = link_hash(row)
    conn = session.connection()
    conn.execute(_APPEND, row)
    conn.execute(
        _MOVE_HEAD,
        {
            "b_org": row["org_id"],
            "b_id": row["document_id"],
            "chain_seq": row["seq"],
            "chain_hash": row["hash"],
        },
    )
    return int(row["seq"]), str(row["hash"])
