"""Revision 0006: tasks already open when deadlines start to act are due for the sweep's
first look at once (else they would never be swept); closed ones are left alone; and
the way down drops what the revision added."""

from __future__ import annotations

import sqlite3

from sqlalchemy import create_engine, inspect

from portal.core import migrate


def _task(db: sqlite3.Connection, task_id: int, status: str) -> None:
    # Foreign keys are off on a plain sqlite3 connection: the rows need no document.
    db.execute(
        "INSERT INTO task (id, org_id, document_id, state, assignee_id, via, transitions,"
        " band_floor, due_at, status, created_at)"
        " VALUES (?, 1, 1, 'submitted', 1, 'grant', '[\"approve\"]', '000000000000000.0000',"
        " '2026-12-03 09:00:00', ?, '2026-12-01 09:00:00')",
        (task_id, status),
    )


def test_open_tasks_are_due_for_a_first_sweep_and_closed_ones_are_not(tmp_path):
    path = str(tmp_path / "deadlines.sqlite3")
    url = f"sqlite:///{path}"
    migrate.upgrade(url, revision="0005")
    with sqlite3.connect(path) as db:
        _task(db, 1, "open")
        _task(db, 2, "completed")

    migrate.upgrade(url)
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT id, sweep_at, level FROM task ORDER BY id").fetchall()
    assert rows[0][0] == 1 and rows[0][1] is not None and rows[0][1].startswith("2026-12-01")
    assert rows[1] == (2, None, 0)

    migrate.downgrade(url, "0005")
    engine = create_engine(url)
    columns = {c["name"] for c in inspect(engine).get_columns("task")}
    tables = set(inspect(engine).get_table_names())
    engine.dispose()
    assert "sweep_at" not in columns and "level" not in columns
    assert not {"deadline_effect", "notice_preference", "mail_digest", "heartbeat"} & tables
