"""Migrations are reviewed code: one head, and every revision goes down as well as up."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, inspect, make_url

from portal.core import migrate
from portal.core.db import Base


def test_there_is_exactly_one_head():
    assert len(migrate.heads()) == 1


def test_the_schema_round_trips_down_to_base_and_up_again(tmp_path):
    url = f"sqlite:///{tmp_path / 'roundtrip.sqlite3'}"
    migrate.upgrade(url)
    tables = set(inspect(create_engine(url)).get_table_names())
    assert set(Base.metadata.tables) <= tables
    migrate.downgrade(url, "base")
    assert set(inspect(create_engine(url)).get_table_names()) <= {"alembic_version"}
    migrate.upgrade(url)
    assert set(Base.metadata.tables) <= set(inspect(create_engine(url)).get_table_names())


def test_the_migrations_match_the_models(tmp_path):
    """Autogenerate finds nothing to add: the models and the migrations agree."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    url = f"sqlite:///{tmp_path / 'compare.sqlite3'}"
    migrate.upgrade(url)
    with create_engine(url).connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


@pytest.mark.postgres_only
def test_on_postgresql_the_schema_round_trips_and_matches_the_models(backend):
    if not backend.postgres:
        pytest.skip("PostgreSQL round trip")
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from tests.conftest import TEST_DB_NAME, create_postgres_database

    app_url, owner_url = create_postgres_database(f"{TEST_DB_NAME}_migrations")
    engine = create_engine(owner_url)
    try:
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        migrate.downgrade(owner_url, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        migrate.upgrade(owner_url, app_url)
        assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.postgres_only
def test_portal_db_upgrade_migrates_as_the_owner_and_grants_the_app_role(backend, settings):
    """The operator's command on an empty database: tables appear, the app role can use
    them, and it still owns none of them."""
    if not backend.postgres:
        pytest.skip("roles and grants are PostgreSQL's")
    import os
    import subprocess
    import sys

    from sqlalchemy import text

    from tests.conftest import TEST_DB_NAME, create_postgres_database

    app_url, owner_url = create_postgres_database(f"{TEST_DB_NAME}_cli", migrated=False)
    app_engine = create_engine(app_url)
    try:
        with app_engine.connect() as conn:  # before: nothing to read
            assert inspect(conn).get_table_names() == []
        env = {
            **os.environ,
            "PORTAL_DATABASE_URL": app_url,
            "PORTAL_MIGRATE_DATABASE_URL": owner_url,
            "PORTAL_INSTANCE_DIR": str(settings.instance_dir),
            "PORTAL_SECRET_KEY": "test",
            "PORTAL_REDIS_URL": backend.redis_url,
        }
        done = subprocess.run(
            [sys.executable, "-m", "portal.cli", "db", "upgrade"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert f"privileges granted to role {make_url(app_url).username}" in done.stdout
        with app_engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM organization")).scalar() == 0
            owned = conn.execute(
                text("SELECT count(*) FROM pg_tables WHERE tableowner = current_user")
            ).scalar()
            assert owned == 0
    finally:
        app_engine.dispose()


def _accounts_at_0003(conn) -> None:
    """An organization, an account with its password and a membership, as revision 0003
    stored them."""
    from sqlalchemy import text

    conn.execute(
        text(
            "INSERT INTO organization (id, slug, name, base_currency, default_locale, created_at)"
            " VALUES (1, 'kept', 'Kept', 'MYR', 'en', CURRENT_TIMESTAMP)"
        )
    )
    conn.execute(
        text(
            "INSERT INTO app_user (id, email, name, password_hash, created_at)"
            " VALUES (1, 'kept@example.test', 'Kept', 'argon2-hash-of-kept', CURRENT_TIMESTAMP)"
        )
    )
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT set_config('app.current_org', '1', true)"))
    conn.execute(
        text(
            "INSERT INTO membership (org_id, user_id, roles, active, created_at)"
            " VALUES (1, 1, '[]', true, CURRENT_TIMESTAMP)"
        )
    )


def _round_trip_keeps_the_accounts(owner_url: str) -> None:
    from sqlalchemy import text

    migrate.upgrade(owner_url, revision="0003")
    engine = create_engine(owner_url)
    try:
        with engine.begin() as conn:
            _accounts_at_0003(conn)
        migrate.upgrade(owner_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT user_id, password_hash FROM credential")).all() == [
                (1, "argon2-hash-of-kept")
            ]
            assert "password_hash" not in {c["name"] for c in inspect(conn).get_columns("app_user")}
            actions = {
                fk["name"]: (fk["options"] or {}).get("ondelete")
                for fk in inspect(conn).get_foreign_keys("membership")
            }
            assert actions["fk_membership_user_id_app_user"] == "RESTRICT"
        migrate.downgrade(owner_url, "0003")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT password_hash FROM app_user")).scalar_one() == (
                "argon2-hash-of-kept"
            )
            assert "credential" not in inspect(conn).get_table_names()
        migrate.upgrade(owner_url)
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":  # row-level security binds the owner too
                conn.execute(text("SELECT set_config('app.current_org', '1', true)"))
            assert conn.execute(text("SELECT count(*) FROM membership")).scalar_one() == 1
    finally:
        engine.dispose()


def test_accounts_keep_their_passwords_up_and_down_through_the_boundary_revision(tmp_path):
    _round_trip_keeps_the_accounts(f"sqlite:///{tmp_path / 'accounts.sqlite3'}")


@pytest.mark.postgres_only
def test_on_postgresql_accounts_keep_their_passwords_through_the_boundary_revision(backend):
    if not backend.postgres:
        pytest.skip("PostgreSQL round trip")
    from tests.conftest import TEST_DB_NAME, create_postgres_database

    _, owner_url = create_postgres_database(f"{TEST_DB_NAME}_accounts", migrated=False)
    _round_trip_keeps_the_accounts(owner_url)
