"""Two layers of tenant isolation: the ORM filter, and PostgreSQL row-level security."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.pool import QueuePool

from portal.accounts.models import Membership
from portal.bench.cleanup import purge_organizations
from portal.core.db import CrossTenantWrite, TenantNotSet, db
from portal.core.uow import platform_work, unit_of_work
from portal.orgchart.models import OrgUnit

postgres_only = pytest.mark.postgres_only


def _member_user_ids(org_id: int | None) -> set[int]:
    with unit_of_work(org_id) as uow:
        return set(uow.session.scalars(select(Membership.user_id)))


def test_each_org_sees_its_own_members_through_the_orm(acme, globex):
    assert _member_user_ids(acme.org.id) == {acme.admin.user_id}
    assert _member_user_ids(globex.org.id) == {globex.admin.user_id}


def test_an_orm_load_without_an_organization_is_refused(acme):
    assert _member_user_ids(acme.org.id)  # the rows exist...
    with pytest.raises(TenantNotSet):
        _member_user_ids(None)  # ...but not for a unit of work that names no tenant


def test_loading_another_orgs_row_by_id_finds_nothing(acme, globex):
    with unit_of_work(globex.org.id) as uow:
        assert uow.session.scalar(select(Membership).where(Membership.id == globex.admin.member_id))
    with unit_of_work(acme.org.id) as uow:
        assert (
            uow.session.scalar(select(Membership).where(Membership.id == globex.admin.member_id))
            is None
        )


def test_a_new_row_is_stamped_with_the_current_org_and_cannot_name_another(acme, globex):
    from portal.core.clock import clock

    with unit_of_work(acme.org.id) as uow:
        unit = OrgUnit(code="HQ", name="Head office", created_at=clock.now())
        uow.session.add(unit)
    assert unit.org_id == acme.org.id
    with pytest.raises(CrossTenantWrite), unit_of_work(acme.org.id) as uow:
        uow.session.add(OrgUnit(org_id=globex.org.id, code="X", name="X", created_at=clock.now()))


def test_a_cross_tenant_reference_cannot_be_stored(acme, globex):
    """Composite (org_id, id) keys: an acme unit cannot have a globex parent."""
    from sqlalchemy.exc import IntegrityError

    from portal.core.clock import clock

    with unit_of_work(globex.org.id) as uow:
        foreign = OrgUnit(code="G", name="Globex unit", created_at=clock.now())
        uow.session.add(foreign)
    with unit_of_work(acme.org.id) as uow:
        uow.session.add(OrgUnit(code="OK", name="fine", created_at=clock.now()))
    with pytest.raises(IntegrityError), unit_of_work(acme.org.id) as uow:
        uow.session.add(OrgUnit(code="A", name="A", parent_id=foreign.id, created_at=clock.now()))


# --- PostgreSQL row-level security ---------------------------------------------------------


@postgres_only
def test_rls_hides_other_orgs_rows_even_when_the_orm_filter_is_bypassed(backend, acme, globex):
    if not backend.postgres:
        pytest.skip("row-level security is PostgreSQL's")
    raw = text("SELECT user_id FROM membership")  # text() is not an ORM statement: no filter
    with unit_of_work(acme.org.id) as uow:
        assert set(uow.session.scalars(raw)) == {acme.admin.user_id}
    with unit_of_work(globex.org.id) as uow:
        assert set(uow.session.scalars(raw)) == {globex.admin.user_id}
    with platform_work() as uow:  # no tenant set: deny by default
        assert set(uow.session.scalars(raw)) == set()


@postgres_only
def test_rls_refuses_writing_a_row_into_another_org(backend, acme, globex):
    if not backend.postgres:
        pytest.skip("row-level security is PostgreSQL's")
    from sqlalchemy.exc import ProgrammingError

    insert = text(
        "INSERT INTO org_unit (org_id, code, name, created_at) VALUES (:org, :code, 'x', now())"
    )
    with unit_of_work(acme.org.id) as uow:
        uow.session.execute(insert, {"org": acme.org.id, "code": "MINE"})
    with (
        pytest.raises(ProgrammingError, match="row-level security"),
        unit_of_work(acme.org.id) as uow,
    ):
        uow.session.execute(insert, {"org": globex.org.id, "code": "THEIRS"})


@postgres_only
def test_every_org_scoped_table_is_covered_and_the_app_role_is_unprivileged(backend, app):
    if not backend.postgres:
        pytest.skip("row-level security is PostgreSQL's")
    assert db.engine is not None
    app_user = db.engine.url.username
    owner = create_engine(backend.owner_url)
    with owner.connect() as conn:
        tables = conn.execute(
            text(
                "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner),"
                " (SELECT count(*) FROM pg_policies p WHERE p.tablename = c.relname"
                "   AND p.policyname = 'tenant_isolation'"
                "   AND p.qual LIKE '%app.current_org%' AND p.with_check LIKE '%app.current_org%')"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = 'public' AND c.relkind = 'r'"
                "   AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid"
                "               AND a.attname = 'org_id' AND NOT a.attisdropped)"
            )
        ).all()
        app_role = conn.execute(
            text(
                "SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = :r"
            ),
            {"r": app_user},
        ).one()
        owned = conn.execute(
            text(
                "SELECT count(*) FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = :r)"
            ),
            {"r": app_user},
        ).scalar()
    owner.dispose()
    assert {t[0] for t in tables} >= {"membership", "org_unit", "position", "position_holding"}
    for name, enabled, forced, _owner, policies in tables:
        assert enabled, f"{name}: row-level security is not enabled"
        assert forced, f"{name}: row-level security is not forced"
        assert policies == 1, f"{name}: no tenant_isolation policy on app.current_org"
    assert tuple(app_role) == (False, False, False, False)
    assert owned == 0


@postgres_only
def test_a_pooled_connection_never_carries_a_tenant_into_the_next_transaction(backend, committed):
    """pool_size=1: every transaction reuses one connection, alternating tenants."""
    if not backend.postgres:
        pytest.skip("row-level security is PostgreSQL's")
    from portal.accounts import services
    from portal.domain.actor import SystemActor
    from portal.provisioning import provision_organization

    org_a = provision_organization("pool-a", "Pool A")
    org_b = provision_organization("pool-b", "Pool B")
    try:
        for org, email in ((org_a, "a@pool.test"), (org_b, "b@pool.test")):
            services.create_user(email, email, "pw-12345678")
            services.enrol_member(SystemActor(org_id=org.id), email=email)
        from sqlalchemy.orm import sessionmaker

        previous = (db.engine, db._factory)
        single = create_engine(backend.app_url, pool_size=1, max_overflow=0)
        db.engine, db._factory = single, sessionmaker(bind=single, expire_on_commit=False)
        raw = text("SELECT count(*) FROM membership")
        try:
            for _ in range(5):
                for org in (org_a, org_b):
                    with unit_of_work(org.id) as uow:
                        assert uow.session.scalar(raw) == 1
                        seen = uow.session.scalar(
                            text("SELECT current_setting('app.current_org', true)")
                        )
                        assert seen == str(org.id)
                    with platform_work() as uow:
                        assert uow.session.scalar(raw) == 0
            pool = single.pool
            assert isinstance(pool, QueuePool)
            assert pool.checkedout() == 0 and pool.size() == 1
        finally:
            single.dispose()
            db.engine, db._factory = previous
    finally:
        purge_organizations(backend.owner_url, slug_like="pool-_", email_like="_@pool.test")
