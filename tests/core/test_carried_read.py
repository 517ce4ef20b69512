"""One transaction per web request: the signed-in user is read in a transaction that the
request's unit of work then takes over with its own settings, committed for real here
(no test transaction around it). Two organizations share the reader; each page sees
only its own organization's rows."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import pytest
from sqlalchemy import event, func, select, text

from portal.accounts import services as accounts
from portal.accounts.queries.session_user import load_session_user
from portal.bench.cleanup import purge_organizations
from portal.core.db import db
from portal.core.uow import carried_read, unit_of_work
from portal.documents import services as documents
from portal.documents.models import Document
from portal.domain.actor import Actor, SystemActor
from portal.provisioning import provision_organization
from tests.factories import actor_of, browser_for

PASSWORD = "carried-pass-123"  # a throwaway account, removed afterwards
CLAIM_FIELDS = {"category": "travel", "expense_date": "2026-11-20"}


@dataclass(frozen=True)
class Two:
    """A person in two organizations, each with a claim of theirs."""

    user_id: int
    email: str
    first: Actor
    second: Actor
    first_reference: str
    second_reference: str
    # A reference the first organization has no document under.
    second_only: str


@pytest.fixture
def two(backend, committed) -> Iterator[Two]:
    tag = uuid.uuid4().hex[:8]
    slugs = [f"carry-{tag}-a", f"carry-{tag}-b"]
    email = f"carry-{tag}@carry.test"
    try:
        accounts.create_user(email, "Carry Person", PASSWORD)
        actors = []
        for slug in slugs:
            org = provision_organization(slug, f"Carry {slug}", base_currency="MYR")
            accounts.enrol_member(SystemActor(org_id=org.id, org_slug=slug), email=email)
            actors.append(actor_of(slug, email))
        references = [
            documents.create_document(
                actor,
                kind="expense_claim",
                title=f"Mine in {actor.org_slug}",
                amount=Decimal(9),
                fields=CLAIM_FIELDS,
            ).reference
            for actor in actors
        ]
        only = documents.create_document(
            actors[1],
            kind="expense_claim",
            title="Only in the second",
            amount=Decimal(5),
            fields=CLAIM_FIELDS,
        ).reference
        yield Two(
            actors[0].user_id, email, actors[0], actors[1], references[0], references[1], only
        )
    finally:
        purge_organizations(backend.owner_url, slug_like=f"carry-{tag}-%", email_like=email)


@pytest.fixture
def transactions() -> Iterator[list[str]]:
    """What the engine begins and ends, in order, while the test runs. Only these
    listeners are removed afterwards: the engine's own (SQLite's BEGIN) stay."""
    seen: list[str] = []
    assert db.engine is not None
    listeners = {
        name: (lambda _conn, name=name: seen.append(name))
        for name in ("begin", "commit", "rollback")
    }
    for name, listener in listeners.items():
        event.listen(db.engine, name, listener)
    try:
        yield seen
    finally:
        for name, listener in listeners.items():
            event.remove(db.engine, name, listener)


def test_a_page_reads_its_user_and_its_rows_in_one_transaction(app, two, transactions):
    browser, _token = browser_for(app, two.email, PASSWORD)
    transactions.clear()

    # The inbox reads its own badges: the user, the rows and the badges in one.
    first = browser.get(f"/o/{two.first.org_slug}/inbox/")
    first_seen = list(transactions)
    transactions.clear()
    second = browser.get(f"/o/{two.second.org_slug}/inbox/")

    assert first.status_code == 200 and f'href="/o/{two.first.org_slug}/inbox/' in first.text
    assert first_seen == ["begin", "commit"]
    assert second.status_code == 200 and f'href="/o/{two.second.org_slug}/inbox/' in second.text
    assert transactions == ["begin", "commit"]


def test_a_page_of_the_other_organization_is_found_only_under_its_own_name(app, two, transactions):
    browser, _token = browser_for(app, two.email, PASSWORD)
    transactions.clear()

    # The second organization's claim asked for under the first one's address.
    crossed = browser.get(f"/o/{two.first.org_slug}/documents/{two.second_only}")
    own = browser.get(f"/o/{two.second.org_slug}/documents/{two.second_only}")

    assert own.status_code == 200 and "Only in the second" in own.text
    assert crossed.status_code == 404
    assert "Only in the second" not in crossed.text
    # The read and the refused page were one transaction, rolled back as a whole (the
    # error page's badges are read after it).
    assert transactions[:2] == ["begin", "rollback"]


def _settings(connection) -> tuple[str, str]:
    org, user = connection.execute(
        text(
            "SELECT current_setting('app.current_org', true),"
            " current_setting('app.current_user', true)"
        )
    ).one()
    return org, user


def test_the_next_unit_of_work_takes_the_read_over_with_its_own_organization(two, backend):
    with db.connection_scope():
        user = load_session_user(two.user_id, 1)
        with unit_of_work(two.first.org_id, user_id=two.user_id) as uow:
            connection = uow.session.connection()
            titles = uow.session.scalars(select(Document.title)).all()
            others = connection.scalar(
                select(func.count())
                .select_from(Document)
                .where(Document.org_id == two.second.org_id)
            )
            settings = _settings(connection) if backend.postgres else None

    assert user is not None and {m.slug for m in user.memberships} == {
        two.first.org_slug,
        two.second.org_slug,
    }
    assert titles == [f"Mine in {two.first.org_slug}"]
    if backend.postgres:
        # Row-level security, not only the ORM's filter: the other organization's rows
        # are not there for a raw count that names them.
        assert others == 0
        assert settings == (str(two.first.org_id), str(two.user_id))


def test_the_read_and_the_unit_of_work_share_one_transaction(two, backend):
    if not backend.postgres:
        pytest.skip("transaction start times: PostgreSQL")
    with db.connection_scope():
        with carried_read(user_id=two.user_id) as connection:
            read_began = connection.scalar(text("SELECT now()"))
        with unit_of_work(two.first.org_id, user_id=two.user_id) as uow:
            work_began = uow.session.scalar(text("SELECT now()"))
        with unit_of_work(two.first.org_id, user_id=two.user_id) as later:
            later_began = later.session.scalar(text("SELECT now()"))

    assert read_began == work_began
    assert later_began != work_began


def test_a_read_nobody_takes_over_ends_with_the_scope(two, backend):
    assert db.engine is not None
    db.engine.dispose()  # a pool of one: the next checkout is this scope's connection
    with db.connection_scope():
        with carried_read(user_id=two.user_id) as connection:
            connection.execute(text("SELECT 1"))
            raw = connection.connection.dbapi_connection
        assert connection.in_transaction()

    with db.engine.connect() as again:
        assert again.connection.dbapi_connection is raw
        assert not again.in_transaction()
        if backend.postgres:
            assert _settings(again) in (("", ""), (None, None))


def test_a_failing_unit_of_work_rolls_the_read_back_and_the_next_begins_afresh(two, backend):
    with db.connection_scope():
        load_session_user(two.user_id, 1)
        with pytest.raises(RuntimeError), unit_of_work(two.first.org_id) as failing:
            failing.session.execute(text("SELECT 1"))
            raise RuntimeError("boom")
        with unit_of_work(two.second.org_id, user_id=two.user_id) as after:
            titles = after.session.scalars(select(Document.title)).all()

    assert sorted(titles) == [f"Mine in {two.second.org_slug}", "Only in the second"]


def test_outside_a_request_the_read_is_a_transaction_of_its_own(two, transactions):
    transactions.clear()
    with carried_read(user_id=two.user_id) as connection:
        connection.execute(text("SELECT 1"))

    assert transactions == ["begin", "commit"]


@pytest.mark.parametrize("goodbye_seen", [True, False], ids=["seen", "arrives-late"])
def test_a_connection_the_server_dropped_is_replaced(two, backend, monkeypatch, goodbye_seen):
    """Dropped while it sat in the pool, the connection is replaced before the read; if
    the server's goodbye arrives only as it is handed out, that read fails once (never
    a wrong answer) and the next is served by a new connection."""
    if not backend.postgres:
        pytest.skip("a server that drops connections: PostgreSQL")
    import psycopg
    from sqlalchemy import create_engine

    from portal.core import pool_ping

    assert db.engine is not None
    db.engine.dispose()
    with db.connection_scope(), carried_read(user_id=two.user_id) as connection:
        pid = connection.scalar(text("SELECT pg_backend_pid()"))
    admin = create_engine(backend.admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
    admin.dispose()

    if not goodbye_seen:
        monkeypatch.setattr(pool_ping, "_spoken_to", lambda _connection: False)
        with db.connection_scope(), pytest.raises(psycopg.OperationalError):
            load_session_user(two.user_id, 1)
    with db.connection_scope():
        user = load_session_user(two.user_id, 1)

    assert user is not None and user.email == two.email
