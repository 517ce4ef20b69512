"""What row-level security reads, set at the start of every transaction.

``core.rls``'s policies compare rows with four transaction-local settings, taken from
the unit of work's ``session.info``: the organization, the signed-in user, the one email
address an anonymous sign-in, reset or invitation may look an account up by, and
whether the platform itself is at work. ``set_config(…, true)`` ends with the
transaction, so a pooled connection never carries them into the next one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

_SET_SCOPE = text(
    "SELECT set_config('app.current_org', :org, true),"
    " set_config('app.current_user', :user, true),"
    " set_config('app.account_email', :email, true),"
    " set_config('app.operator', :operator, true)"
)


# The same statement for the driver itself (its own placeholders).
_SET_SCOPE_SQL = (
    "SELECT set_config('app.current_org', %(org)s, true),"
    " set_config('app.current_user', %(user)s, true),"
    " set_config('app.account_email', %(email)s, true),"
    " set_config('app.operator', %(operator)s, true)"
)


def _scope_values(info: dict[str, Any]) -> dict[str, str]:
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
    # psycopg cannot bind parameters into SET LOCAL; set_config(..., true) is the
    # transaction-local equivalent, so a pooled connection forgets it at commit.
    if connection.dialect.name != "postgresql":
        return
    # A savepoint inherits its transaction's settings: nothing to set again.
    if _txn.nested:
        return
    driver = connection.connection.driver_connection
    if driver is None or connection.in_nested_transaction():  # pragma: no cover - defensive
        connection.execute(_SET_SCOPE, _scope_values(session.info))
        return
    # The driver's BEGIN and the settings leave in one pipeline: one round trip, not two.
    with driver.pipeline():
        driver.execute(_SET_SCOPE_SQL, _scope_values(session.info), prepare=True)


def rescope(session: Session, *, user_id: int | None = None, email: str | None = None) -> None:
    """Narrow a unit of work that began without knowing whom it is about: an anonymous
    sign-in finds the account by its email, then reads its credential as that user. The
    organization never changes inside a transaction."""
    if user_id is not None:
        session.info["user_id"] = user_id
    if email is not None:
        session.info["email"] = email
    if session.connection().dialect.name == "postgresql":
        session.connection().execute(_SET_SCOPE, _scope_values(session.info))
