"""Running the Alembic migrations and granting the app role its privileges.

Never called on app start: ``portal db upgrade`` (and the test harness) run it, as the
schema owner (``PORTAL_MIGRATE_DATABASE_URL``).
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, make_url, pool, text

from portal.config import MIGRATIONS_DIR
from portal.core.rls import grant_app_role_sql


def alembic_config(url: str) -> Config:
    config = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def heads() -> list[str]:
    return list(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def upgrade(migrate_url: str, app_url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(migrate_url), revision)
    if app_url is not None:
        grant_app_role(migrate_url, app_url)


def downgrade(migrate_url: str, revision: str) -> None:
    command.downgrade(alembic_config(migrate_url), revision)


def app_role_of(app_url: str) -> str | None:
    return make_url(app_url).username


def grant_app_role(migrate_url: str, app_url: str) -> str | None:
    """Give the app's role DML on the tables (no DDL, no ownership). Returns the role."""
    if not migrate_url.startswith("postgresql"):
        return None
    owner = make_url(migrate_url).username
    role = app_role_of(app_url)
    if role is None or role == owner:
        return None
    engine = create_engine(migrate_url, poolclass=pool.NullPool)
    try:
        with engine.begin() as conn:
            tables = inspect(conn).get_table_names(schema="public")
            for statement in grant_app_role_sql(role, sorted(tables)):
                conn.execute(text(statement))
    finally:
        engine.dispose()
    return role
