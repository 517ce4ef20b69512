"""One pooled connection per web request, and the transaction its user was read in.

Within a scope every unit of work runs on one pooled connection, taken on first use: a
request's units of work pay the pool checkout and its liveness ping once. Each stays
its own transaction, with its own row-level security settings (transaction-local, so
nothing of one reaches the next) — except that the read of the signed-in user may
leave its transaction open (``carried``) for the request's next unit of work to take
over with its own settings: a request that reads its user and then its page runs one
transaction, not two.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sqlalchemy.engine import Connection, Engine


class ConnectionScope:
    def __init__(self) -> None:
        self._connection: Connection | None = None
        # A read left its transaction open for the next unit of work to take over.
        self.carried = False

    def connection(self, engine: Engine) -> Connection:
        if self._connection is None or self._connection.closed or self._connection.invalidated:
            self._connection = engine.connect()
            self.carried = False
        return self._connection

    def close(self) -> None:
        """Back to the pool: a carried transaction nobody took over is rolled back."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self.carried = False


_current: ContextVar[ConnectionScope | None] = ContextVar("connection_scope", default=None)


def current_scope() -> ConnectionScope | None:
    return _current.get()


@contextmanager
def connection_scope() -> Iterator[None]:
    scope = ConnectionScope()
    token = _current.set(scope)
    try:
        yield
    finally:
        _current.reset(token)
        scope.close()
