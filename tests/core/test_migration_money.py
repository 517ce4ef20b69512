"""Revision 0005 on SQLite: amounts that were floats become exact fixed-width text, and
go back to numbers on the way down, with the history's append-only guard still there."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

import pytest
from sqlalchemy import create_engine, select

from portal.core import migrate
from portal.documents.models import Decision, Document


def _seed_at_0004(path: str) -> None:
    # Foreign keys are off on a plain sqlite3 connection: the rows need no organization.
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO document (id, org_id, kind, reference, title, description, amount,"
            " currency, fields, requester_id, flow_version_id, version, state,"
            " state_entered_at, created_at, updated_at)"
            " VALUES (1, 1, 'expense_claim', 'EXP-1', 't', '', 1234.56, 'MYR', '{}', 1, 1, 1,"
            " 'draft', '2026-12-01 00:00:00', '2026-12-01 00:00:00', '2026-12-01 00:00:00')"
        )
        db.execute(
            "INSERT INTO decision (id, org_id, document_id, seq, flow_version_id, from_state,"
            " to_state, transition, gate, via, amount, currency, winning_floor, eligible,"
            " resolution, comment, decided_at, prev_hash, hash)"
            " VALUES (1, 1, 1, 1, 1, 'draft', 'pending', 'submit', 'requester', 'requester',"
            " 1234.56, 'MYR', NULL, '[]', '[]', '', '2026-12-01 00:00:00', 'x', 'y')"
        )


def test_sqlite_amounts_become_exact_text_and_come_back(tmp_path):
    path = str(tmp_path / "money.sqlite3")
    url = f"sqlite:///{path}"
    migrate.upgrade(url, revision="0004")
    _seed_at_0004(path)

    migrate.upgrade(url)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT typeof(amount), amount FROM document").fetchone() == (
            "text",
            "000000000001234.5600",
        )
        assert db.execute("SELECT amount, winning_floor FROM decision").fetchone() == (
            "000000000001234.5600",
            None,
        )
        # The history still refuses to be rewritten.
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("UPDATE decision SET comment = 'changed'")
    engine = create_engine(url)
    with engine.connect() as conn:
        assert conn.scalar(select(Document.amount)) == Decimal("1234.56")
        assert conn.scalar(select(Decision.amount)) == Decimal("1234.56")
        # Compared in SQL as the numbers are: the bound value takes the same spelling.
        assert conn.scalar(select(Document.id).where(Document.amount >= Decimal("999.99"))) == 1
        assert conn.scalar(select(Document.id).where(Document.amount >= Decimal("10000"))) is None
    engine.dispose()

    migrate.downgrade(url, "0004")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT typeof(amount), amount FROM document").fetchone() == (
            "real",
            1234.56,
        )
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("DELETE FROM decision")
