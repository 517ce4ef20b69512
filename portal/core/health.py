"""Health of the shared services: liveness (``check``), readiness (``readiness``: the
database at the migration head, Redis answering), the workers' heartbeats, whether the
mail server takes a connection, and the no-op job that proves the queue path."""

from __future__ import annotations

import smtplib
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from rq import Worker
from sqlalchemy import text

from portal.config import Settings
from portal.core.clock import clock
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
    report["redis"] = _redis_answer()
    report["ok"] = report["database"] == "ok" and not str(report["redis"]).startswith("error")
    return report


def _redis_answer() -> str:
    try:
        redis_holder.get().ping()
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return "embedded" if redis_holder.embedded else "ok"


# --- readiness ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def migration_heads() -> frozenset[str]:
    """The migration scripts' head(s): they do not change while the process runs."""
    from portal.core.migrate import heads

    return frozenset(heads())


def readiness() -> dict[str, object]:
    """Whether this process may take traffic: the database answers and is at the
    migration head (a deploy whose ``portal db upgrade`` has not run yet is not ready),
    Redis answers, and a worker has beaten its heart lately (without one, nothing is
    mailed and no deadline acts). ``not_ready`` names what is not."""
    report: dict[str, object] = {}
    try:
        assert db.engine is not None
        with db.engine.connect() as conn:
            stamped = frozenset(
                conn.execute(text("SELECT version_num FROM alembic_version")).scalars()
            )
        report["database"] = "ok"
        head = migration_heads()
        at, wanted = ", ".join(sorted(stamped)) or "nothing", ", ".join(sorted(head))
        report["migrations"] = "ok" if stamped == head else f"at {at}; the head is {wanted}"
    except Exception as exc:  # the readiness answer is the point; never raise from it
        report["database"] = f"error: {type(exc).__name__}"
        report["migrations"] = "unknown"
    report["redis"] = _redis_answer()
    report["workers"] = _workers_answer()
    not_ready = [
        name
        for name in ("database", "migrations", "redis", "workers")
        if report[name] not in ("ok", "embedded")
    ]
    report["not_ready"] = not_ready
    report["ready"] = not not_ready
    return report


# --- workers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerBeat:
    name: str
    # RQ's words: idle, busy, suspended, started.
    state: str
    last_heartbeat: datetime | None
    queues: tuple[str, ...]


@dataclass(frozen=True)
class Workers:
    # The demo's worker runs inside the web process, on an in-process queue.
    embedded: bool
    # Why the workers could not be listed (Redis unreachable), in words; else None.
    error: str | None
    workers: tuple[WorkerBeat, ...] = ()


def worker_beats() -> Workers:
    """The workers registered on Redis, with their last heartbeat (RQ's own)."""
    if redis_holder.embedded:
        return Workers(embedded=True, error=None)
    try:
        found = Worker.all(connection=redis_holder.get())
    except Exception as exc:  # the page says so; it must not fail for it
        return Workers(embedded=False, error=f"{type(exc).__name__}: {exc}"[:300])
    beats = (
        WorkerBeat(w.name, str(w.get_state()), w.last_heartbeat, tuple(w.queue_names()))
        for w in found
    )
    return Workers(embedded=False, error=None, workers=tuple(sorted(beats, key=lambda b: b.name)))


# RQ's workers beat at least every worker_ttl (420 s) less a margin, idle or busy.
WORKER_FRESH = timedelta(minutes=10)


def _workers_answer() -> str:
    found = worker_beats()
    if found.embedded:
        return "embedded"
    if found.error is not None:
        return f"error: {found.error}"
    beats = [w.last_heartbeat for w in found.workers if w.last_heartbeat is not None]
    if not beats:
        return "no worker has registered"
    latest = max(b if b.tzinfo else b.replace(tzinfo=UTC) for b in beats)
    if datetime.now(UTC) - latest > WORKER_FRESH:
        return f"no worker heartbeat since {latest.isoformat(timespec='seconds')}"
    return "ok"


# --- mail --------------------------------------------------------------------------------

# A check is a connection to the mail server: short, and at most once a minute per process.
SMTP_CHECK_TIMEOUT = 5
SMTP_CHECK_TTL = 60.0


def check_smtp(settings: Settings) -> str | None:
    """Connect to the configured mail server as sending would (TLS, EHLO, STARTTLS,
    login), then quit. None when it works (or no server is configured: mail is written
    to files); otherwise what went wrong, in words. Never raises: a worker starts with
    a warning, not a crash loop."""
    s = settings
    if not s.smtp_host:
        return None
    timeout = min(s.smtp_timeout, SMTP_CHECK_TIMEOUT)
    where = f"the mail server {s.smtp_host}:{s.smtp_port}"
    try:
        context = ssl.create_default_context()
        server: smtplib.SMTP
        if s.smtp_security == "tls":
            server = smtplib.SMTP_SSL(s.smtp_host, s.smtp_port, timeout=timeout, context=context)
        else:
            server = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=timeout)
        with server:
            server.ehlo()
            if s.smtp_security == "starttls":
                server.starttls(context=context)
                server.ehlo()
            if s.smtp_user:
                server.login(s.smtp_user, s.smtp_password)
    except Exception as exc:  # every failure is an answer here
        return f"{where}: {_smtp_problem(exc, timeout)}"
    return None


def _smtp_problem(exc: Exception, timeout: int) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "the connection was refused (is the host and port right, is it running?)"
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout} s"
    if isinstance(exc, socket.gaierror):
        return "the host name was not found"
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return f"the login was refused ({exc.smtp_code})"
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return "the server does not offer STARTTLS (set PORTAL_SMTP_SECURITY)"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason or exc})"
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return "the server closed the connection"
    return f"{type(exc).__name__}: {exc}"[:300]


@dataclass(frozen=True)
class SmtpCheck:
    # None: the server took the connection (or mail goes to files).
    error: str | None
    checked_at: datetime


_smtp_checks: dict[tuple[str, int, str, str], tuple[float, SmtpCheck]] = {}
_smtp_lock = threading.Lock()


def smtp_check(settings: Settings) -> SmtpCheck:
    """``check_smtp``'s last answer for these settings, checked again when it is older
    than a minute, so a page that shows it does not connect on every load."""
    key = (settings.smtp_host, settings.smtp_port, settings.smtp_security, settings.smtp_user)
    with _smtp_lock:
        cached = _smtp_checks.get(key)
    if cached is not None and time.monotonic() - cached[0] < SMTP_CHECK_TTL:
        return cached[1]
    result = SmtpCheck(check_smtp(settings), clock.now())
    with _smtp_lock:
        _smtp_checks[key] = (time.monotonic(), result)
    return result
