"""The trust boundary in the database: what the app role may do to each table, stated
here on its own and compared with the catalogue; what a request may read of the
platform tables; and that nothing the app can do erases a tenant."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from portal.core.db import db, rows_changed
from portal.core.uow import platform_work, unit_of_work

pytestmark = pytest.mark.postgres_only

# Table -> (table privileges, the columns it may UPDATE). Written out by hand: a grant
# that drifts from this list, either way, fails the test.
EXPECTED = {
    "organization": (
        {"SELECT", "INSERT"},
        {
            "name",
            "default_locale",
            "time_zone",
            "territory",
            "chart_version",
            "require_admin_two_factor",
            "archived_at",
            "reminder_lead_minutes",
        },
    ),
    "app_user": ({"SELECT", "INSERT"}, {"name", "locale", "session_version", "active"}),
    "credential": (
        {"SELECT", "INSERT"},
        {
            "password_hash",
            "password_changed_at",
            "totp_secret",
            "totp_pending_secret",
            "totp_enabled_at",
            "totp_last_step",
            "recovery_codes",
        },
    ),
    "account_token": ({"SELECT", "INSERT"}, {"used_at"}),
    "membership": ({"SELECT", "INSERT"}, {"roles", "active", "left_at", "time_zone"}),
    "invitation": (
        {"SELECT", "INSERT"},
        {
            "name",
            "roles",
            "invited_by",
            "selector",
            "expires_at",
            "sent_at",
            "send_count",
            "accepted_at",
            "member_id",
            "revoked_at",
            "revoked_by",
        },
    ),
    "org_unit": ({"SELECT", "INSERT"}, {"code", "name", "parent_id", "head_position_id"}),
    "position": ({"SELECT", "INSERT"}, {"code", "title", "unit_id", "reports_to_id", "active"}),
    "position_holding": ({"SELECT", "INSERT"}, {"valid_to"}),
    "seat_reservation": ({"SELECT", "INSERT"}, {"valid_from", "settled_at"}),
    "import_job": (
        {"SELECT", "INSERT"},
        {
            "status",
            "started_at",
            "created",
            "updated",
            "invited",
            "problems",
            "failure",
            "finished_at",
        },
    ),
    "flow_draft": (
        {"SELECT", "INSERT", "DELETE"},
        {"revision", "base_version", "graph", "updated_at", "updated_by"},
    ),
    "flow_version": ({"SELECT", "INSERT"}, set()),
    "reference_counter": ({"SELECT", "INSERT"}, {"last_number"}),
    "document": (
        {"SELECT", "INSERT"},
        {
            "title",
            "description",
            "amount",
            "currency",
            "fields",
            "state",
            "state_entered_at",
            "dispute_raiser_id",
            "row_version",
            "chain_seq",
            "chain_hash",
            "updated_at",
            "discarded_at",
            "discarded_by",
        },
    ),
    "document_edit": ({"SELECT", "INSERT"}, set()),
    "task": ({"SELECT", "INSERT"}, {"status", "completed_at", "completed_by", "sweep_at"}),
    "deadline_effect": ({"SELECT", "INSERT"}, set()),
    "decision": ({"SELECT", "INSERT"}, set()),
    "delegation": (
        {"SELECT", "INSERT"},
        {"revoked_at", "revoked_by", "start_noticed_at", "end_noticed_at"},
    ),
    "audit_export": ({"SELECT", "INSERT"}, set()),
    "chain_verification": ({"SELECT", "INSERT"}, set()),
    "outbox": (
        {"SELECT", "INSERT", "DELETE"},
        {"attempts", "next_attempt_at", "dispatched_at", "last_error", "dead_at"},
    ),
    "notification": ({"SELECT", "INSERT"}, {"read_at"}),
    "notice_preference": ({"SELECT", "INSERT"}, {"channels", "email_digest", "updated_at"}),
    "mail_digest": ({"SELECT", "INSERT"}, set()),
    "heartbeat": ({"SELECT"}, {"beat_at", "detail"}),
    "alembic_version": ({"SELECT"}, set()),
}


def _skip_unless_postgres(backend) -> None:
    if not backend.postgres:
        pytest.skip("roles, grants and row-level security are PostgreSQL's")


def test_the_app_role_has_exactly_the_privileges_it_needs_on_every_table(backend, app):
    _skip_unless_postgres(backend)
    assert db.engine is not None
    role = db.engine.url.username
    owner = create_engine(backend.owner_url)
    try:
        with owner.connect() as conn:
            tables = set(
                conn.scalars(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
            )
            granted: dict[str, set[str]] = {t: set() for t in tables}
            for table, privilege in conn.execute(
                text(
                    "SELECT table_name, privilege_type FROM information_schema.role_table_grants"
                    " WHERE grantee = :r AND table_schema = 'public'"
                ),
                {"r": role},
            ):
                granted[table].add(privilege)
            updatable: dict[str, set[str]] = {t: set() for t in tables}
            for table, column in conn.execute(
                text(
                    "SELECT table_name, column_name FROM information_schema.column_privileges"
                    " WHERE grantee = :r AND table_schema = 'public'"
                    " AND privilege_type = 'UPDATE'"
                ),
                {"r": role},
            ):
                updatable[table].add(column)
    finally:
        owner.dispose()
    assert tables == set(EXPECTED), "a table has no stated privileges (or one is gone)"
    for table, (privileges, columns) in EXPECTED.items():
        assert granted[table] == privileges, table
        assert updatable[table] == columns, table


def test_the_app_role_cannot_delete_an_organization_or_an_account_or_rewrite_an_email(
    backend, acme, globex
):
    _skip_unless_postgres(backend)
    rename = text("UPDATE app_user SET name = 'Renamed' WHERE id = :u")
    with platform_work(user_id=acme.admin.user_id) as uow:  # the allowed case: one's own name
        assert rows_changed(uow.session.execute(rename, {"u": acme.admin.user_id})) == 1

    for statement, params in (
        ("DELETE FROM organization WHERE id = :o", {"o": globex.org.id}),
        ("DELETE FROM app_user WHERE id = :u", {"u": globex.admin.user_id}),
        ("DELETE FROM membership WHERE id = :m", {"m": globex.admin.member_id}),
        ("DELETE FROM credential WHERE user_id = :u", {"u": globex.admin.user_id}),
        ("UPDATE app_user SET email = 'mine@evil.test' WHERE id = :u", {"u": globex.admin.user_id}),
        ("TRUNCATE organization CASCADE", {}),
    ):
        with pytest.raises(DBAPIError, match="permission denied"), platform_work() as uow:
            uow.session.execute(text(statement), params)
    with unit_of_work(globex.org.id) as uow:
        assert uow.session.scalar(text("SELECT count(*) FROM membership")) == 1


def test_no_cascade_reaches_a_tenants_history_even_for_the_schema_owner(backend, acme):
    _skip_unless_postgres(backend)
    owner = create_engine(backend.owner_url)
    try:
        with owner.connect() as conn, conn.begin() as outer:
            org_id = conn.scalar(
                text(
                    "INSERT INTO organization (slug, name, base_currency, default_locale, created_at)"
                    " VALUES ('cascade-test', 'Cascade', 'USD', 'en', now()) RETURNING id"
                )
            )
            conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org_id)})
            conn.execute(
                text(
                    "INSERT INTO org_unit (org_id, code, name, created_at)"
                    " VALUES (:o, 'HQ', 'Head office', now())"
                ),
                {"o": org_id},
            )
            with (
                pytest.raises(DBAPIError, match="violates foreign key constraint"),
                conn.begin_nested(),
            ):
                conn.execute(text("DELETE FROM organization WHERE id = :o"), {"o": org_id})
            assert conn.scalar(text("SELECT count(*) FROM org_unit")) == 1
            outer.rollback()
    finally:
        owner.dispose()


def test_a_request_reads_its_own_account_and_its_organizations_members_only(
    backend, acme, globex, make_member
):
    _skip_unless_postgres(backend)
    bob = make_member(acme.org, "Bob Builder")
    accounts = text("SELECT email FROM app_user")
    organizations = text("SELECT slug FROM organization")
    credentials = text("SELECT user_id FROM credential")

    with unit_of_work(acme.org.id, user_id=acme.admin.user_id) as uow:  # an acme admin's page
        assert set(uow.session.scalars(accounts)) == {acme.admin.email, bob.email}
        assert set(uow.session.scalars(organizations)) == {"acme-test"}
        # Colleagues' names, never their secrets: only one's own credential.
        assert set(uow.session.scalars(credentials)) == {acme.admin.user_id}
    with platform_work(user_id=bob.user_id) as uow:  # Bob's own pages
        assert set(uow.session.scalars(accounts)) == {bob.email}
        assert set(uow.session.scalars(organizations)) == {"acme-test"}
    with platform_work(email=globex.admin.email) as uow:  # an anonymous sign-in's look-up
        assert set(uow.session.scalars(accounts)) == {globex.admin.email}
        assert set(uow.session.scalars(credentials)) == set()
    with platform_work() as uow:  # nobody in particular: nothing at all
        assert set(uow.session.scalars(accounts)) == set()
        assert set(uow.session.scalars(organizations)) == set()


def test_an_organization_is_created_only_by_the_platform(backend, app):
    _skip_unless_postgres(backend)
    insert = text(
        "INSERT INTO organization (slug, name, base_currency, default_locale, created_at)"
        " VALUES ('sneaky', 'Sneaky', 'USD', 'en', now())"
    )
    with pytest.raises(DBAPIError, match="row-level security"), platform_work() as uow:
        uow.session.execute(insert)
    from portal.core.uow import operator_work

    with operator_work() as uow:  # the allowed case: the operator's own scope
        uow.session.execute(insert)


def test_account_mail_in_the_outbox_is_its_owners_and_the_platforms_only(
    backend, acme, globex, app
):
    _skip_unless_postgres(backend)
    from portal.accounts.services import passwords
    from portal.core.uow import operator_work

    passwords.issue_password_reset(acme.admin.email)
    rows = text("SELECT count(*) FROM outbox WHERE org_id IS NULL")
    with platform_work(user_id=acme.admin.user_id) as uow:  # the account itself
        assert uow.session.scalar(rows) == 1
    with operator_work() as uow:  # the worker that delivers it
        assert uow.session.scalar(rows) == 1
    for scope in (
        platform_work(),  # an anonymous request
        platform_work(email=acme.admin.email),  # one that names the address
        platform_work(user_id=globex.admin.user_id),  # someone else
        unit_of_work(acme.org.id, user_id=acme.admin.user_id),  # an organization's page
    ):
        with scope as uow:
            assert uow.session.scalar(rows) == 0
