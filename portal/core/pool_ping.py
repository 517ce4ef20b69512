"""The pool's liveness check, for connections that sat idle.

SQLAlchemy's ``pool_pre_ping`` costs every unit of work a round trip. A connection back
from work a moment ago is as alive as it was then; one idle for longer than
``IDLE_BEFORE_PING`` is pinged before it is handed out, and a dead one is replaced
unseen. (One the server dropped within that second fails its unit of work once, and is
dropped too: ``core.scope``.)
"""

from __future__ import annotations

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
    if returned is None or time.monotonic() - returned < IDLE_BEFORE_PING:
        return  # new, or busy a moment ago
    try:
        dbapi_connection.execute("")  # an empty query: one round trip, no parse, no plan
    except Exception as dead:
        raise DisconnectionError() from dead


def ping_when_idle(engine: Engine) -> None:
    """Check this engine's connections on checkout when they were idle."""
    event.listen(engine, "checkout", _ping_if_idle)
    event.listen(engine, "checkin", _note_checkin)
