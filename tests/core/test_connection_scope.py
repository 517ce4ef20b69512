"""One pooled connection per web request: its units of work share the connection but
each is its own transaction, and nothing of one tenant's settings reaches the next."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, text

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
