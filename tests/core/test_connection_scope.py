"""One pooled connection per web request: its units of work share the connection but
each is its own transaction, and nothing of one tenant's settings reaches the next."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from sqlalchemy import create_engine, select, text

from portal.accounts.models import Organization
from portal.core.db import db
from portal.core.uow import unit_of_work


def _backend_pid(uow) -> object:
    return uow.session.connection().connection.dbapi_connection


def _current_org(uow) -> str | None:
    if db.dialect != "postgresql":
        return None
    return uow.session.execute(text("SELECT current_setting('app.current_org', true)")).scalar()


def test_units_of_work_in_one_scope_share_a_connection_and_not_their_tenant(committed):
    with db.connection_scope():
        with unit_of_work(1) as first:
            one, first_org = _backend_pid(first), _current_org(first)
        with unit_of_work(2) as second:
            two, second_org = _backend_pid(second), _current_org(second)
        with unit_of_work(None) as platform:
            platform_org = _current_org(platform)

    assert one is two
    if db.dialect == "postgresql":
        # Transaction-local: each unit of work sees only the organization it named.
        assert (first_org, second_org, platform_org) == ("1", "2", "")


def test_a_failed_unit_of_work_leaves_the_scope_usable(committed):
    with db.connection_scope():
        with pytest.raises(RuntimeError), unit_of_work(1) as failing:
            failing.session.execute(text("SELECT 1"))
            raise RuntimeError("boom")
        with unit_of_work(1) as after:
            assert after.session.execute(text("SELECT 2")).scalar() == 2


def test_outside_a_scope_each_unit_of_work_takes_its_own_checkout(committed):
    with unit_of_work(1) as first:
        assert first.session.get_bind() is db.engine


def test_timestamps_come_back_aware_and_in_utc(acme):
    with unit_of_work(acme.org.id) as uow:
        created = uow.session.execute(
            select(Organization.created_at).where(Organization.id == acme.org.id)
        ).scalar_one()
        zone = (
            uow.session.execute(text("SHOW TimeZone")).scalar()
            if db.dialect == "postgresql"
            else "UTC"
        )

    assert created.tzinfo is not None and created.utcoffset() == timedelta(0)
    # PostgreSQL sessions are pinned to UTC at connect, whatever the server's default.
    assert zone == "UTC"


def test_a_unit_of_work_inside_another_keeps_to_its_own_transaction(committed):
    with db.connection_scope(), unit_of_work(1) as outer:
        outer_connection = _backend_pid(outer)
        with unit_of_work(2) as inner:
            inner_connection, inner_org = _backend_pid(inner), _current_org(inner)
        # The outer transaction still sees its own organization.
        outer_org = _current_org(outer)

    assert inner_connection is not outer_connection
    if db.dialect == "postgresql":
        assert (outer_org, inner_org) == ("1", "2")


def _one_connection_pool() -> None:
    """Let the pool start over, so the next units of work share one connection."""
    assert db.engine is not None
    db.engine.dispose()


def _pooled_then_dropped(backend) -> int:
    """The pool's one connection, back from a unit of work and then ended by the
    server; returns its backend's pid."""
    _one_connection_pool()
    with unit_of_work(1) as first:
        pid = first.session.execute(text("SELECT pg_backend_pid()")).scalar_one()
    _terminate(backend, pid)
    return int(pid)


def _terminate(backend, pid: int) -> None:
    """End the backend, and wait until it is gone (its goodbye sent)."""
    admin = create_engine(backend.admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
    admin.dispose()


def test_a_connection_the_server_dropped_while_it_sat_in_the_pool_is_replaced_unseen(
    backend, committed
):
    if not backend.postgres:
        pytest.skip("a server that drops connections: PostgreSQL")
    from portal.core import pool_ping

    _one_connection_pool()
    with unit_of_work(1) as first:
        pid = first.session.execute(text("SELECT pg_backend_pid()")).scalar_one()
    with unit_of_work(1) as again:  # back a moment ago, nothing said: handed out as is
        assert again.session.execute(text("SELECT pg_backend_pid()")).scalar_one() == pid
    _terminate(backend, pid)

    # Back in the pool a moment ago, well inside the idle time that goes unpinged; but
    # the server's goodbye is waiting on its socket, so it is pinged, found dead, and
    # replaced before anyone uses it.
    assert pool_ping.IDLE_BEFORE_PING >= 1.0
    with unit_of_work(1) as after:
        assert after.session.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid
        assert (
            after.session.execute(text("SELECT current_setting('app.current_org')")).scalar_one()
            == "1"
        )


def test_a_connection_dropped_as_it_is_handed_out_fails_once_and_is_replaced(
    backend, committed, monkeypatch
):
    if not backend.postgres:
        pytest.skip("a server that drops connections: PostgreSQL")
    from portal.core import pool_ping

    pid = _pooled_then_dropped(backend)
    # As if the goodbye arrived just after the look at the socket: the unit of work that
    # draws it fails at its first message, and the pool lets the connection go.
    monkeypatch.setattr(pool_ping, "_spoken_to", lambda _connection: False)
    with (
        pytest.raises(psycopg.OperationalError, match=r"(?i)terminat|closed|connection"),
        unit_of_work(1) as broken,
    ):
        broken.session.execute(text("SELECT 1"))
    with unit_of_work(1) as after:
        assert after.session.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid


def test_a_connection_idle_past_the_ping_is_checked_before_it_is_handed_out(
    backend, committed, monkeypatch
):
    if not backend.postgres:
        pytest.skip("a server that drops connections: PostgreSQL")
    from portal.core import pool_ping

    pid = _pooled_then_dropped(backend)
    monkeypatch.setattr(pool_ping, "IDLE_BEFORE_PING", 0.0)  # as if a second had passed

    with unit_of_work(1) as after:  # the ping found it dead: a fresh one, no error
        assert after.session.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid
