"""What a benchmark can read about where its time went, without help from PostgreSQL's
configuration: CPU seconds of processes on this machine (from ``/proc``), and round
trips on one psycopg connection (from libpq's own protocol trace).

A round trip is counted each time the client, having sent one or more messages, reads
the server's answer: pipelined statements count once, a pool's liveness ping counts.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Engine

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU of these processes so far; a process that is gone counts 0
    (its share is lost: measure over processes that live through the interval)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / _TICKS


def child_pids(parent: int) -> list[int]:
    """The direct children of ``parent`` (a gunicorn master's workers)."""
    found: list[int] = []
    for task in Path(f"/proc/{parent}/task").glob("*"):
        try:
            found.extend(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def backend_pids(engine: Engine) -> list[int]:
    """The PostgreSQL backends serving this database's clients (not this one, and not
    autovacuum's workers, whose work is PostgreSQL's own),
    when the server runs on this machine; else none (``/proc`` cannot see them)."""
    if engine.dialect.name != "postgresql":
        return []
    with engine.connect() as conn:
        pids = conn.scalars(
            text(
                "SELECT pid FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND backend_type = 'client backend'"
            )
        ).all()
    return [pid for pid in pids if Path(f"/proc/{pid}/stat").exists()]


@dataclass
class RoundTrips:
    """Round trips counted per labelled call (``count``), from libpq's trace."""

    calls: dict[str, list[int]] = field(default_factory=dict)

    def per_call(self, label: str) -> float:
        counts = self.calls.get(label, [])
        return sum(counts) / len(counts) if counts else 0.0


def _round_trips_in(trace: str) -> int:
    """Turns of the conversation: a run of client messages ('F') answered by the server
    ('B') is one round trip."""
    trips, sending = 0, False
    for line in trace.splitlines():
        direction = line.split("\t", 1)[0]
        if direction == "F":
            sending = True
        elif direction == "B" and sending:
            trips += 1
            sending = False
    return trips


@contextmanager
def traced(engine: Engine) -> Iterator[Any]:
    """Trace every psycopg connection this engine opens while the block runs; the
    yielded ``measure(label)`` context counts one call's round trips (``.trips``).

    libpq buffers its trace: each measurement stops and restarts tracing, which flushes
    it, and reads what the call added to the file (opened for appending)."""
    if engine.dialect.name != "postgresql":
        yield None
        return
    from psycopg import pq

    out = tempfile.NamedTemporaryFile(mode="a+", suffix=".trace")  # noqa: SIM115 - closed below
    connections: list[Any] = []

    def restart(connection: Any) -> None:
        if connection.closed:
            return
        pgconn = connection.pgconn
        pgconn.untrace()
        # libpq takes its own stream (never closed by it): a fresh descriptor each time.
        pgconn.trace(os.open(out.name, os.O_WRONLY | os.O_APPEND))
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    def start(dbapi_conn: Any, _record: Any) -> None:
        connections.append(dbapi_conn)
        restart(dbapi_conn)

    event.listen(engine, "connect", start)
    engine.pool.dispose()  # every connection from now on is traced from its birth
    trips = RoundTrips()

    @contextmanager
    def measure(label: str) -> Iterator[None]:
        for connection in connections:
            restart(connection)
        begin = os.path.getsize(out.name)
        yield
        for connection in connections:
            restart(connection)
        with open(out.name) as trace:
            trace.seek(begin)
            trips.calls.setdefault(label, []).append(_round_trips_in(trace.read()))

    measure.trips = trips  # type: ignore[attr-defined]
    try:
        yield measure
    finally:
        event.remove(engine, "connect", start)
        for connection in connections:
            if not connection.closed:
                connection.pgconn.untrace()
        engine.pool.dispose()
        out.close()
