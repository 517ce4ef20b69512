"""What row-level security reads, set at the start of every transaction.

``core.rls``'s policies compare rows with four transaction-local settings, taken from
the unit of work's ``session.info``: the organization, the signed-in user, the one email
address an anonymous sign-in, reset or invitation may look an account up by, and
whether the platform itself is at work. ``set_config(…, true)`` ends with the
transaction, so a pooled connection never carries them into the next one.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import pq
from psycopg import sql as psql
from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

_SET_SCOPE = text(
    "SELECT set_config('app.current_org', :org, true),"
    " set_config('app.current_user', :user, true),"
    " set_config('app.account_email', :email, true),"
    " set_config('app.operator', :operator, true)"
)


# The transaction's start and its settings as one simple query for the driver: one
# message, one round trip (the values are quoted by the driver as literals).
_BEGIN_SCOPED = (
    "BEGIN; SELECT set_config('app.current_org', {org}, true),"
    " set_config('app.current_user', {user}, true),"
    " set_config('app.account_email', {email}, true),"
    " set_config('app.operator', {operator}, true)"
)


def scope_values(info: dict[str, Any]) -> dict[str, str]:
    """The four settings for a unit of work's ``session.info`` (or the same keys)."""

    def text_of(key: str) -> str:
        value = info.get(key)
        return "" if value is None else str(value)

    return {
        "org": text_of("org_id"),
        "user": text_of("user_id"),
        "email": text_of("email"),
        "operator": "on" if info.get("operator") else "",
    }


@event.listens_for(Session, "after_begin")
def _set_database_tenant(session: Session, _txn: Any, connection: Connection) -> None:
    # A savepoint inherits its transaction's settings: nothing to set again.
    if _txn.nested:
        return
    begin_scoped(connection, scope_values(session.info))


def begin_scoped(connection: Connection, values: dict[str, str]) -> None:
    """Give the transaction starting (or, when one is open already, going on) on
    ``connection`` the settings ``values`` (``scope_values``)."""
    # psycopg cannot bind parameters into SET LOCAL; set_config(..., true) is the
    # transaction-local equivalent, so a pooled connection forgets it at commit.
    if connection.dialect.name != "postgresql":
        return
    driver = connection.connection.driver_connection
    if driver is None or driver.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        # Inside a transaction already (a test's, rolled back around it, or the one a
        # web request's user was read in): settings only.
        connection.execute(_SET_SCOPE, values)
        return
    if driver.isolation_level is not None or driver.read_only is not None:
        # A BEGIN of the driver's own would carry these: let it send it.
        connection.execute(_SET_SCOPE, values)
        return
    # The driver would send its BEGIN on its own, a round trip before the settings; sent
    # together, the driver finds its transaction open and sends none.
    query = psql.SQL(_BEGIN_SCOPED).format(**{k: psql.Literal(v) for k, v in values.items()})
    try:
        result = driver.pgconn.exec_(query.as_bytes(driver))
        failed = result.status != pq.ExecStatus.TUPLES_OK
        message = result.error_message
    except psycopg.Error as error:  # the connection itself is gone
        failed, message = True, str(error).encode()
    if failed:
        # Sent past the driver, so the pool never saw the error: drop the connection,
        # or the next unit of work would be handed the same broken one.
        connection.invalidate()
        raise psycopg.OperationalError(
            (message or b"could not begin the transaction").decode(errors="replace")
        )


def rescope(session: Session, *, user_id: int | None = None, email: str | None = None) -> None:
    """Narrow a unit of work that began without knowing whom it is about: an anonymous
    sign-in finds the account by its email, then reads its credential as that user. The
    organization never changes inside a transaction."""
    if user_id is not None:
        session.info["user_id"] = user_id
    if email is not None:
        session.info["email"] = email
    if session.connection().dialect.name == "postgresql":
        session.connection().execute(_SET_SCOPE, scope_values(session.info))
