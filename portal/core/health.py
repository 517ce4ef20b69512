"""Liveness of the two shared services, and the no-op job that proves the queue path."""

from __future__ import annotations

from sqlalchemy import text

from portal.core.db import db
from portal.core.queue import redis_holder


def ping() -> str:
    """The no-op job: a worker that can import the app and reach the database says pong."""
    assert db.engine is not None
    with db.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return "pong"


def check() -> dict[str, object]:
    report: dict[str, object] = {}
    try:
        assert db.engine is not None
        with db.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        report["database"] = "ok"
    except Exception as exc:  # the health answer is the point; never raise from it
        report["database"] = f"error: {type(exc).__name__}"
    try:
        redis_holder.get().ping()
        report["redis"] = "embedded" if redis_holder.embedded else "ok"
    except Exception as exc:
        report["redis"] = f"error: {type(exc).__name__}"
    report["ok"] = report["database"] == "ok" and not str(report["redis"]).startswith("error")
    return report
