"""The floor `portal bench transitions` compares the engine with: the transition's
statements written by hand, with no ORM and no rules.

On PostgreSQL the floor is as lean as the statements allow while keeping what the
engine guarantees: the transaction's start and the tenant's setting in one message, one
locking read of the document with the approver's tasks, and one statement of
data-modifying CTEs for the advance (conditional on the state and row version), the task
close and open, the hash-chained decision and the outbox rows; then COMMIT — four round
trips. SQLite runs the same writes one statement each.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import make_url


def raw_rate(world: Any, claims: list[tuple[Any, str]], conn: Any) -> float:
    """Claims moved per second by the hand-written loop."""
    if isinstance(conn, sqlite3.Connection):
        return _step_by_step_rate(world, claims, conn)
    return _lean_rate(world, claims, conn)


_LEAN_LOAD = (
    "SELECT d.id, d.state, d.row_version, d.amount, d.flow_version_id, d.chain_seq,"
    " d.chain_hash, u.name, o.chart_version,"
    " (SELECT json_agg(json_build_array(t.state, t.status, t.via, t.transitions)) FROM task t"
    " WHERE t.org_id = d.org_id AND t.document_id = d.id AND t.assignee_id = %(approver)s)"
    " FROM document d JOIN membership m ON m.org_id = d.org_id AND m.id = d.requester_id"
    " JOIN app_user u ON u.id = m.user_id JOIN organization o ON o.id = d.org_id"
    " WHERE d.org_id = %(org)s AND d.reference = %(reference)s FOR UPDATE OF d"
)
_LEAN_WRITE = (
    "WITH advanced AS (UPDATE document SET state = 'reviewed', state_entered_at = %(now)s,"
    " row_version = %(row_version)s, updated_at = %(now)s, chain_seq = %(seq)s,"
    " chain_hash = %(hash)s WHERE org_id = %(org)s AND id = %(doc)s AND state = %(state)s"
    " AND row_version = %(seen)s RETURNING id),"
    " closed AS (UPDATE task SET status = CASE WHEN assignee_id = %(approver)s"
    " THEN 'completed' ELSE 'cancelled' END, completed_at = %(now)s, completed_by = %(approver)s"
    " WHERE org_id = %(org)s AND document_id = %(doc)s AND state = %(state)s"
    " AND status = 'open' AND EXISTS (SELECT FROM advanced)),"
    " decided AS (INSERT INTO decision (org_id, document_id, seq, flow_version_id, from_state,"
    " to_state, transition, gate, actor_id, authority_member_id, via, amount, currency,"
    " winning_floor, eligible, resolution, comment, decided_at, prev_hash, hash)"
    " SELECT %(org)s, id, %(seq)s, %(version)s, %(state)s, 'reviewed', 'review', 'target',"
    " %(approver)s, %(approver)s, 'grant', %(amount)s, 'MYR', 0, %(eligible)s, '[]', '',"
    " %(now)s, %(prev)s, %(hash)s FROM advanced),"
    " opened AS (INSERT INTO task (org_id, document_id, state, assignee_id, via, transitions,"
    " band_floor, status, created_at) SELECT %(org)s, id, 'reviewed', %(approver)s, 'grant',"
    " '[\"approve\", \"reject\"]', 0, 'open', %(now)s FROM advanced),"
    " queued AS (INSERT INTO outbox (org_id, topic, payload, created_at, next_attempt_at,"
    " attempts) SELECT %(org)s, topic, %(payload)s, %(now)s, %(now)s, 0 FROM advanced,"
    " unnest(ARRAY['notify.task_assigned', 'notify.document_moved']) AS topic)"
    " SELECT count(*) FROM advanced"
)


def _lean_rate(world: Any, claims: list[tuple[Any, str]], conn: Any) -> float:
    org = world.org_id
    begin = f"BEGIN; SELECT set_config('app.current_org', '{int(org)}', true)".encode()
    start = time.perf_counter()
    for requester, reference in claims:
        approver = world.superiors[requester.member_id].member_id
        conn.pgconn.exec_(begin)
        cur = conn.cursor()
        cur.execute(_LEAN_LOAD, {"approver": approver, "org": org, "reference": reference})
        doc_id, state, row_version, amount, version_id, seq, prev, _name, _chart, _tasks = (
            cur.fetchone()
        )
        now = datetime.now(UTC)
        record = json.dumps({"document": doc_id, "seq": seq + 1, "to": "reviewed"}, sort_keys=True)
        digest = hashlib.sha256(f"{prev}\n{record}".encode()).hexdigest()
        cur.execute(
            _LEAN_WRITE,
            {
                "now": now,
                "row_version": row_version + 1,
                "seq": seq + 1,
                "hash": digest,
                "prev": prev,
                "org": org,
                "doc": doc_id,
                "state": state,
                "seen": row_version,
                "approver": approver,
                "version": version_id,
                "amount": amount,
                "eligible": json.dumps([approver]),
                "payload": json.dumps({"document_id": doc_id}),
            },
        )
        if cur.fetchone()[0] != 1:
            raise RuntimeError(f"{reference} moved under the hand-written loop")
        conn.commit()
    return len(claims) / (time.perf_counter() - start)


_READ_DOCUMENT = (
    "SELECT d.id, d.state, d.row_version, d.amount, d.flow_version_id, d.chain_seq,"
    " d.chain_hash, u.name, o.chart_version FROM document d"
    " JOIN membership m ON m.org_id = d.org_id AND m.id = d.requester_id"
    " JOIN app_user u ON u.id = m.user_id JOIN organization o ON o.id = d.org_id"
    " WHERE d.org_id = ? AND d.reference = ?"
)
_LOCK_DOCUMENT = _READ_DOCUMENT + " FOR UPDATE OF d"


def raw_connection(url: str) -> Any:
    """psycopg on PostgreSQL, sqlite3 on SQLite: no pool, no ORM, autocommit off by hand."""
    if url.startswith("postgresql"):
        import psycopg

        return psycopg.connect(
            make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        )
    return sqlite3.connect(make_url(url).database or ":memory:", isolation_level=None)


def _step_by_step_rate(world: Any, claims: list[tuple[Any, str]], conn: Any) -> float:
    """The transition's statements one by one (SQLite has no data-modifying CTEs), one
    transaction per document, values computed in plain Python."""
    postgres = not isinstance(conn, sqlite3.Connection)
    mark = "%s" if postgres else "?"
    org = world.org_id

    def q(sql: str) -> str:
        return sql.replace("?", mark)

    start = time.perf_counter()
    for requester, reference in claims:
        cur = conn.cursor()
        cur.execute("BEGIN" if postgres else "BEGIN IMMEDIATE")
        if postgres:
            cur.execute("SELECT set_config('app.current_org', %s, true)", (str(org),))
        cur.execute(q(_LOCK_DOCUMENT if postgres else _READ_DOCUMENT), (org, reference))
        doc_id, state, row_version, amount, version_id, seq, prev, _name, _chart = cur.fetchone()
        # The engine reads the chart only when its version moved; here it never does.
        approver = world.superiors[requester.member_id].member_id
        cur.execute(
            q(
                "SELECT id, transitions FROM task WHERE org_id = ? AND document_id = ?"
                " AND state = ? AND assignee_id = ? AND status = 'open'"
            ),
            (org, doc_id, state, approver),
        )
        cur.fetchall()
        now = datetime.now(UTC)
        cur.execute(
            q(
                "UPDATE document SET state = 'reviewed', state_entered_at = ?, row_version = ?,"
                " updated_at = ? WHERE org_id = ? AND id = ? AND state = ? AND row_version = ?"
            ),
            (now, row_version + 1, now, org, doc_id, state, row_version),
        )
        cur.execute(
            q(
                "UPDATE task SET status = CASE WHEN assignee_id = ? THEN 'completed' ELSE 'cancelled' END,"
                " completed_at = ?, completed_by = ? WHERE org_id = ? AND document_id = ? AND state = ?"
                " AND status = 'open'"
            ),
            (approver, now, approver, org, doc_id, state),
        )
        cur.execute(
            q(
                "SELECT seq, hash FROM decision WHERE org_id = ? AND document_id = ?"
                " ORDER BY seq DESC LIMIT 1"
            ),
            (org, doc_id),
        )
        seq, prev = cur.fetchone()
        record = json.dumps({"document": doc_id, "seq": seq + 1, "to": "reviewed"}, sort_keys=True)
        digest = hashlib.sha256(f"{prev}\n{record}".encode()).hexdigest()
        cur.execute(
            q(
                "INSERT INTO decision (org_id, document_id, seq, flow_version_id, from_state, to_state,"
                " transition, gate, actor_id, authority_member_id, via, amount, currency, winning_floor,"
                " eligible, resolution, comment, decided_at, prev_hash, hash) VALUES"
                " (?, ?, ?, ?, ?, 'reviewed', 'review', 'target', ?, ?, 'grant', ?, 'MYR', 0, ?, ?, '',"
                " ?, ?, ?)"
            ),
            (
                org,
                doc_id,
                seq + 1,
                version_id,
                state,
                approver,
                approver,
                amount,
                json.dumps([approver]),
                json.dumps([]),
                now,
                prev,
                digest,
            ),
        )
        cur.execute(
            q(
                "INSERT INTO task (org_id, document_id, state, assignee_id, via, transitions,"
                " band_floor, status, created_at) VALUES (?, ?, 'reviewed', ?, 'grant', ?, 0, 'open', ?)"
            ),
            (org, doc_id, approver, json.dumps(["approve", "reject"]), now),
        )
        for topic in ("notify.task_assigned", "notify.document_moved"):
            cur.execute(
                q(
                    "INSERT INTO outbox (org_id, topic, payload, created_at, next_attempt_at, attempts)"
                    " VALUES (?, ?, ?, ?, ?, 0)"
                ),
                (org, topic, json.dumps({"document_id": doc_id}), now, now),
            )
        cur.execute("COMMIT")
    return len(claims) / (time.perf_counter() - start)
