"""The pool's liveness check, for connections that sat idle.

SQLAlchemy's ``pool_pre_ping`` costs every unit of work a round trip. A connection back
from work a moment ago is as alive as it was then — unless the server has spoken on it
since: an idle connection is sent nothing unasked but the notice that it is being
closed (``pg_terminate_backend``, a server shutting down, a proxy's restart). So one
back a moment ago is looked at without a round trip (is anything waiting to be read?),
and pinged only then; one idle for longer than ``IDLE_BEFORE_PING`` is pinged anyway.
Either way a dead connection is replaced unseen. (One the server drops while it is
being handed out fails its unit of work once, and is dropped too: ``core.scope``.)
"""

from __future__ import annotations

import select
import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError

# Seconds a pooled connection may sit idle and still be handed out without a ping.
IDLE_BEFORE_PING = 1.0


def _note_checkin(_dbapi_connection: Any, record: Any) -> None:
    if record is not None:
        record.info["checked_in_at"] = time.monotonic()


def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """The pool's pessimistic liveness check, for idle connections only: a failed ping
    makes the pool discard the connection and hand out a new one."""
    returned = record.info.get("checked_in_at")
    if returned is None:
        return  # new
    if time.monotonic() - returned < IDLE_BEFORE_PING and not _spoken_to(dbapi_connection):
        return  # busy a moment ago, and the server has said nothing since
    try:
        dbapi_connection.execute("")  # an empty query: one round trip, no parse, no plan
    except Exception as dead:
        raise DisconnectionError() from dead


def _spoken_to(dbapi_connection: Any) -> bool:
    """Whether the server has sent anything on this idle connection (a select with no
    wait: no round trip). SQLite's connections have no socket, and nothing to say."""
    pgconn = getattr(dbapi_connection, "pgconn", None)
    if pgconn is None:
        return False
    try:
        readable, _, _ = select.select([pgconn.socket], [], [], 0)
    except Exception:  # no socket any more (psycopg says so by raising): ping to be sure
        return True
    return bool(readable)


def ping_when_idle(engine: Engine) -> None:
    """Check this engine's connections on checkout when they were idle."""
    event.listen(engine, "checkout", _ping_if_idle)
    event.listen(engine, "checkin", _note_checkin)
