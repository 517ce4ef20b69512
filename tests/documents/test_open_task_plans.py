"""The statements that look for open tasks state ``status = 'open'`` in their SQL, as
the task table's partial indexes do, rather than binding it as a parameter: PostgreSQL's
generic plan for a prepared statement (psycopg prepares after five uses) can use a
partial index only when the query carries the same constant. Bound, the member's inbox
in an organization of 50,000 open tasks was planned as a walk of all of them (13.5 ms);
stated, it is a seek on ``ix_task_open_by_assignee`` (0.2 ms) — measured with ``EXPLAIN
(ANALYZE, BUFFERS)`` on the generic plan."""

from __future__ import annotations

from sqlalchemy import select

from portal.core.db import db
from portal.deadlines import queries as deadline_queries
from portal.documents.models import OPEN_STATUS, TaskStatus
from portal.documents.queries import overdue, tasks
from portal.documents.transitions import TASK_TABLE

OPEN = "task.status = 'open'"


def _sql(statement) -> str:
    assert db.engine is not None
    return str(statement.compile(db.engine))


def test_the_inbox_the_badge_and_the_sweep_state_the_open_status(app):
    statements = {
        "inbox rows": tasks._OPEN_TASKS,
        "inbox rows under cover": tasks._OPEN_OR_LENT,
        "badge": tasks._COUNT_OPEN,
        "earliest deadline": overdue._OLDEST_DUE,
        "sweep": select(TASK_TABLE.c.id).where(deadline_queries._DUE),
    }
    for name, statement in statements.items():
        assert OPEN in _sql(statement), name


def test_the_open_status_is_the_partial_indexes_own_constant(app):
    predicates = {
        index.name: str(index.dialect_options["postgresql"]["where"])
        for index in TASK_TABLE.indexes
        if index.dialect_options["postgresql"]["where"] is not None
    }

    assert set(predicates) >= {"ix_task_open_by_assignee", "ix_task_open_by_document"}
    for predicate in predicates.values():
        assert predicate.startswith("status = 'open'")
    assert _sql(select(TASK_TABLE.c.id).where(TASK_TABLE.c.status == OPEN_STATUS)).endswith(OPEN)
    # Bound as a parameter, for contrast: the form the generic plan cannot match.
    bound = select(TASK_TABLE.c.id).where(TASK_TABLE.c.status == TaskStatus.OPEN)
    assert OPEN not in _sql(bound)


def test_the_audit_s_approver_and_delegate_filters_state_their_constants(app):
    from portal.documents.queries.audit_search import _decided_by

    assert "decision.via != 'requester'" in _sql(_decided_by(7, under_cover=False))
    assert "decision.via = 'delegation'" in _sql(_decided_by(7, under_cover=True))
