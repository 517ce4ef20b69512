"""Test harness: real PostgreSQL + Redis when reachable, SQLite + fakeredis otherwise.

``PORTAL_TEST_BACKEND`` picks explicitly (``services`` or ``embedded``);
``PORTAL_TEST_REQUIRE_SERVICES=1`` turns a missing PostgreSQL or Redis into a failure.
Each test runs inside one outer transaction that is rolled back at the end; every unit
of work inside it becomes a SAVEPOINT, so services commit as they would in production.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, make_url, pool, text

from portal.config import Settings
from portal.core import migrate
from portal.core.clock import clock
from portal.core.db import db
from portal.core.queue import redis_holder
from portal.flows.queries import version_cache
from portal.orgchart.queries import chart_cache
from tests.mailbox import Mailbox, start_smtp_server

# Several checkouts can run their suites side by side on one server: each names its
# own databases (and its own Redis databases, with PORTAL_TEST_REDIS_URL).
TEST_DB_NAME = os.environ.get("PORTAL_TEST_DB_NAME", "countersign_test")
OWNER_ROLE = "countersign_test_owner"
APP_ROLE = "countersign_test_app"


@dataclass(frozen=True)
class Backend:
    name: str  # "services" or "embedded"
    app_url: str
    owner_url: str
    redis_url: str
    admin_url: str = ""

    @property
    def postgres(self) -> bool:
        return self.name == "services"


def _admin_url() -> str:
    return os.environ.get(
        "PORTAL_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )


def _redis_url() -> str:
    return os.environ.get("PORTAL_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _services_reachable() -> str | None:
    """None when PostgreSQL and Redis both answer; otherwise what is missing."""
    import redis

    try:
        engine = create_engine(
            _admin_url(), poolclass=pool.NullPool, connect_args={"connect_timeout": 3}
        )
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        return f"PostgreSQL at {_admin_url()}: {exc.__class__.__name__}"
    try:
        redis.Redis.from_url(_redis_url(), socket_connect_timeout=3).ping()
    except Exception as exc:
        return f"Redis at {_redis_url()}: {exc.__class__.__name__}"
    return None


def _choose_backend_name() -> str:
    chosen = os.environ.get("PORTAL_TEST_BACKEND", "auto")
    if chosen in {"services", "embedded"}:
        return chosen
    missing = _services_reachable()
    if missing is None:
        return "services"
    if os.environ.get("PORTAL_TEST_REQUIRE_SERVICES") == "1":
        raise pytest.UsageError(f"PORTAL_TEST_REQUIRE_SERVICES=1 but {missing} is not reachable")
    return "embedded"


def create_postgres_database(name: str, *, migrated: bool = True) -> tuple[str, str]:
    """A fresh database owned by the owner role, migrated, with the app role granted
    (or left empty with ``migrated=False``).

    Returns (app_url, owner_url). The roles are created when missing: the owner runs
    migrations; the app role owns nothing and cannot bypass row-level security.
    """
    admin = make_url(_admin_url())
    engine = create_engine(admin, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        for role, extra in (
            (OWNER_ROLE, ""),
            (APP_ROLE, " NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE"),
        ):
            exists = conn.execute(
                text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}
            ).scalar()
            if not exists:
                conn.execute(text(f"CREATE ROLE {role} LOGIN{extra}"))
        conn.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = :d AND pid <> pg_backend_pid()"
            ),
            {"d": name},
        )
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}" OWNER {OWNER_ROLE}'))
    engine.dispose()
    owner_url = admin.set(username=OWNER_ROLE, password=None, database=name)
    app_url = admin.set(username=APP_ROLE, password=None, database=name)
    owner = owner_url.render_as_string(hide_password=False)
    app = app_url.render_as_string(hide_password=False)
    # PostgreSQL 15 no longer lets every role create in schema public; the owner of
    # the database gets it explicitly.
    engine = create_engine(
        admin.set(database=name), poolclass=pool.NullPool, isolation_level="AUTOCOMMIT"
    )
    with engine.connect() as conn:
        conn.execute(text(f"ALTER SCHEMA public OWNER TO {OWNER_ROLE}"))
    engine.dispose()
    if migrated:
        migrate.upgrade(owner, app)
    return app, owner


def create_sqlite_database(path: Path) -> str:
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="session")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Backend:
    name = _choose_backend_name()
    if name == "services":
        app_url, owner_url = create_postgres_database(TEST_DB_NAME)
        return Backend(name, app_url, owner_url, _redis_url(), _admin_url())
    url = create_sqlite_database(tmp_path_factory.mktemp("db") / "test.sqlite3")
    return Backend(name, url, url, "")


def pytest_report_header(config: pytest.Config) -> str:
    return f"portal test backend: {os.environ.get('PORTAL_TEST_BACKEND', 'auto')}"


@pytest.fixture(scope="session")
def smtp_server() -> Iterator[tuple[Controller, Mailbox]]:
    """A real SMTP server on loopback: every mail the tests' portal sends lands here."""
    controller, mailbox = start_smtp_server()
    try:
        yield controller, mailbox
    finally:
        controller.stop()


@pytest.fixture
def mailbox(smtp_server: tuple[Controller, Mailbox]) -> Mailbox:
    """What the SMTP server received during this test."""
    box = smtp_server[1]
    box.clear()
    return box


@pytest.fixture(scope="session")
def settings(
    backend: Backend,
    tmp_path_factory: pytest.TempPathFactory,
    smtp_server: tuple[Controller, Mailbox],
) -> Settings:
    return Settings(
        env="test",
        instance_dir=tmp_path_factory.mktemp("instance"),
        database_url=backend.app_url,
        migrate_database_url=backend.owner_url,
        redis_url=backend.redis_url,
        secret_key="test-secret-key-not-for-production",
        embedded_worker=False,
        testing=True,
        db_pool_size=2,
        base_url="https://countersign.test",
        smtp_host=smtp_server[0].hostname,
        smtp_port=smtp_server[0].port,
        smtp_security="none",
        mail_sender="Countersign <no-reply@countersign.test>",
    )


def run_queued_jobs() -> int:
    """Run the jobs waiting on the queue in this process (a password reset's look-up,
    an import), as a worker would; the outbox's own doorbells are left to
    ``deliver_mail``, which counts what it delivers. Returns how many ran."""
    from portal.core.queue import get_queue

    queue, ran = get_queue(), 0
    for job in queue.get_jobs():
        queue.remove(job)
        if not (job.func_name or "").endswith("dispatch_outbox"):
            job.perform()
            ran += 1
    return ran


def deliver_mail(*org_ids: int) -> int:
    """What a worker does after commit: run the queued jobs, then deliver the account
    mail and the organizations' events (mail among them); returns how many events were
    delivered."""
    from portal.core.outbox import dispatch_outbox

    run_queued_jobs()
    return sum(dispatch_outbox(org_id) for org_id in (None, *org_ids))


@pytest.fixture(scope="session")
def app(settings: Settings):
    from portal.app import create_app

    application = create_app(settings)
    application.config["WTF_CSRF_ENABLED"] = True
    return application


@pytest.fixture(autouse=True)
def _isolated(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test that touches the app runs in a transaction rolled back at the end."""
    if "app" not in request.fixturenames and "committed" not in request.fixturenames:
        yield
        return
    if "committed" in request.fixturenames:
        yield  # the test commits for real and cleans up itself
        return
    request.getfixturevalue("app")
    assert db.engine is not None
    connection = db.engine.connect()
    outer = connection.begin()
    db.pin_to(connection)
    redis_holder.get().flushdb()
    # Rolled-back rows can come back under the same ids (SQLite reuses them): forget
    # every version the previous test loaded.
    version_cache.clear()
    chart_cache.clear()
    try:
        yield
    finally:
        clock.unfreeze()
        db.pin_to(None)
        outer.rollback()
        connection.close()


@pytest.fixture
def committed(app):
    """Marks a test that commits for real (several connections, threads, pools)."""
    redis_holder.get().flushdb()
    version_cache.clear()
    chart_cache.clear()
    yield
    clock.unfreeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
    # Benchmarks run only when asked for by marker (``-m benchmark``): they measure, a
    # test asserts.
    if "benchmark" not in (config.option.markexpr or ""):
        measured = [item for item in items if item.get_closest_marker("benchmark")]
        if measured:
            config.hook.pytest_deselected(items=measured)
            items[:] = [item for item in items if not item.get_closest_marker("benchmark")]


pytest_plugins = ["tests.factories"]
