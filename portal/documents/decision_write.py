"""A decision's writes: one statement on PostgreSQL, step by step on SQLite.

Advancing the document (conditional on the state and row version read under its lock),
closing the tasks of the state it leaves, appending the hash-chained decision, opening
the next step's tasks and queueing the outbox rows are five writes; sent one by one
they are five round trips. Here they are one statement of data-modifying CTEs, each
write after the first conditional on the advance having happened: should the document
have moved on, nothing at all is written and the statement answers 0. The rows are the
ones the step-by-step path writes (SQLite keeps that path: it has no such CTEs).
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, case, insert, text, update
from sqlalchemy.engine import Connection

from portal.core.db import table_of
from portal.core.outbox import OutboxEvent
from portal.documents.models import OPEN_STATUS, Decision, Document, Task, TaskStatus

_DOC = table_of(Document)
_TASK = table_of(Task)

_TASK_RECORD = (
    "org_id bigint, document_id bigint, state varchar, assignee_id bigint, via varchar,"
    " transitions json, band_floor numeric, due_at timestamptz, status varchar,"
    " created_at timestamptz, level bigint, sweep_at timestamptz"
)
_TASK_COLUMNS = (
    "org_id, document_id, state, assignee_id, via, transitions, band_floor, due_at, status,"
    " created_at, level, sweep_at"
)
_EVENT_RECORD = (
    "org_id bigint, topic varchar, payload json, created_at timestamptz,"
    " next_attempt_at timestamptz, attempts bigint"
)
_EVENT_COLUMNS = "org_id, topic, payload, created_at, next_attempt_at, attempts"
_DECISION_COLUMNS = (
    "org_id, document_id, seq, flow_version_id, from_state, to_state, transition, gate,"
    " actor_id, authority_member_id, via, delegation_id, amount, currency, winning_floor,"
    " eligible, resolution, comment, request_id, decided_at, prev_hash, hash"
)
_JSON_COLUMNS = frozenset({"eligible", "resolution"})
_DECISION_VALUES = ", ".join(
    f"CAST(:d_{c.strip()} AS json)" if c.strip() in _JSON_COLUMNS else f":d_{c.strip()}"
    for c in _DECISION_COLUMNS.split(",")
)

# Constant column lists; every value is bound.
_WRITE = text(
    "WITH advanced AS ("  # noqa: S608
    " UPDATE document SET state = :state, state_entered_at = :now, row_version = :row_version,"
    " dispute_raiser_id = :dispute_raiser_id, updated_at = :now, chain_seq = :chain_seq,"
    " chain_hash = :chain_hash"
    " WHERE org_id = :org AND id = :document AND state = :from_state"
    " AND row_version = :seen_row_version RETURNING id),"
    " closed AS ("
    " UPDATE task SET status = CASE WHEN assignee_id IN (:actor, :authority)"
    " THEN 'completed' ELSE 'cancelled' END, completed_at = :now, completed_by = :actor"
    " WHERE org_id = :org AND document_id = :document AND state = :from_state"
    " AND status = 'open' AND EXISTS (SELECT FROM advanced)),"
    f" decided AS (INSERT INTO decision ({_DECISION_COLUMNS})"
    f" SELECT {_DECISION_VALUES} FROM advanced),"
    f" opened AS (INSERT INTO task ({_TASK_COLUMNS}) SELECT {_TASK_COLUMNS}"
    f" FROM json_to_recordset(CAST(:tasks AS json)) AS t({_TASK_RECORD})"
    " WHERE EXISTS (SELECT FROM advanced)),"
    f" queued AS (INSERT INTO outbox ({_EVENT_COLUMNS}) SELECT {_EVENT_COLUMNS}"
    f" FROM json_to_recordset(CAST(:events AS json)) AS e({_EVENT_RECORD})"
    " WHERE EXISTS (SELECT FROM advanced))"
    " SELECT count(*) FROM advanced"
)


def _plain(value: Any) -> Any:
    """A value as JSON carries it to ``json_to_recordset`` (which casts it back)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"cannot carry {type(value).__name__} in a row")


def write_decision(
    conn: Connection,
    *,
    advance: dict[str, Any],
    close: dict[str, Any],
    decision: dict[str, Any],
    tasks: list[dict[str, Any]],
    events: list[dict[str, Any]],
) -> bool:
    """All five writes, or none when the document is no longer as it was read (False).
    ``advance``: the new columns and the state and row version read; ``close``: the
    actor and the authority whose tasks complete."""
    if conn.dialect.name != "postgresql":
        return _step_by_step(conn, advance, close, decision, tasks, events)
    params: dict[str, Any] = {
        **advance,
        **close,
        **{
            f"d_{key}": json.dumps(value) if key in _JSON_COLUMNS else value
            for key, value in decision.items()
        },
        "tasks": json.dumps(tasks, default=_plain),
        "events": json.dumps(events, default=_plain),
    }
    return bool(conn.scalar(_WRITE, params))


_ADVANCE = (
    update(_DOC)
    .where(
        _DOC.c.org_id == bindparam("org"),
        _DOC.c.id == bindparam("document"),
        _DOC.c.state == bindparam("from_state"),
        _DOC.c.row_version == bindparam("seen_row_version"),
    )
    .values(
        state=bindparam("state"),
        state_entered_at=bindparam("now"),
        row_version=bindparam("row_version"),
        dispute_raiser_id=bindparam("dispute_raiser_id"),
        updated_at=bindparam("now"),
        chain_seq=bindparam("chain_seq"),
        chain_hash=bindparam("chain_hash"),
    )
)
# The decision that leaves a state completes the actor's task there (and, under cover,
# the delegator's) and cancels everyone else's, in one statement.
_CLOSE_TASKS = (
    update(_TASK)
    .where(
        _TASK.c.org_id == bindparam("org"),
        _TASK.c.document_id == bindparam("document"),
        _TASK.c.state == bindparam("from_state"),
        _TASK.c.status == OPEN_STATUS,
    )
    .values(
        status=case(
            (
                _TASK.c.assignee_id.in_((bindparam("actor"), bindparam("authority"))),
                TaskStatus.COMPLETED,
            ),
            else_=TaskStatus.CANCELLED,
        ),
        completed_at=bindparam("now"),
        completed_by=bindparam("actor"),
    )
)


def _step_by_step(
    conn: Connection,
    advance: dict[str, Any],
    close: dict[str, Any],
    decision: dict[str, Any],
    tasks: list[dict[str, Any]],
    events: list[dict[str, Any]],
) -> bool:
    """The same writes one statement each (SQLite, where one writer holds the database
    for the transaction anyway)."""
    if conn.execute(_ADVANCE, advance).rowcount != 1:
        return False
    where = {key: advance[key] for key in ("org", "document", "from_state", "now")}
    conn.execute(_CLOSE_TASKS, {**close, **where})
    conn.execute(insert(table_of(Decision)), decision)
    if tasks:
        conn.execute(insert(_TASK), tasks)
    if events:
        conn.execute(insert(table_of(OutboxEvent)), events)
    return True
