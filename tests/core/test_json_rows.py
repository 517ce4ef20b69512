"""``json_rows``: a correlated subquery's rows as one JSON column, the same on both
databases (a document's load carries its tasks and covers with it this way)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from portal.core.db import table_of
from portal.core.json_rows import json_rows, rows_of
from portal.core.uow import unit_of_work
from portal.documents import services as documents
from portal.documents import transitions
from portal.documents.models import Document, Task

_DOC, _TASK = table_of(Document), table_of(Task)


def _tasks_of(org_id: int, reference: str) -> list[list[object]]:
    tasks = (
        select(json_rows(_TASK.c.state, _TASK.c.status, _TASK.c.transitions))
        .where(_TASK.c.org_id == _DOC.c.org_id, _TASK.c.document_id == _DOC.c.id)
        .scalar_subquery()
    )
    with unit_of_work(org_id) as uow:
        row = uow.session.execute(
            select(tasks.label("tasks")).where(
                _DOC.c.org_id == org_id, _DOC.c.reference == reference
            )
        ).first()
    return rows_of(row.tasks) if row is not None else []


def test_child_rows_come_back_as_lists_with_their_json_as_json(people, globex):
    siti = people("siti")
    doc = documents.create_document(
        siti,
        kind="expense_claim",
        title="Hotel",
        amount=Decimal("320.00"),
        fields={"category": "travel", "expense_date": "2026-11-20"},
    )
    assert _tasks_of(siti.org_id, doc.reference) == []  # none yet: an empty list

    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    rows = _tasks_of(siti.org_id, doc.reference)
    assert rows and all(state == "pending_review" and status == "open" for state, status, _ in rows)
    # A JSON column stays a value (a list), not a string holding one.
    assert all(isinstance(moves, list) and "review" in moves for _s, _st, moves in rows)
    # Another organization's unit of work reads neither the document nor its tasks.
    assert _tasks_of(globex.org.id, doc.reference) == []
