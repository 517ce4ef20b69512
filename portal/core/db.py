"""The declarative base, the tenant-scoping mixin and the engine holder.

Tenant isolation has two layers. This module is the first: every ORM statement that
touches a ``TenantScoped`` model is filtered by the session's organization, and every
new row is stamped with it. PostgreSQL row-level security is the second (``core.rls``);
``core.scope`` feeds it the same organization at the start of every transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import Connection, CursorResult, Engine, Result
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    ORMExecuteState,
    Session,
    declared_attr,
    mapped_column,
    sessionmaker,
    with_loader_criteria,
)
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator

from portal.core import scope as _scope  # noqa: F401 - sets row-level security's scope
from portal.core.connection_scope import connection_scope, current_scope
from portal.core.money_column import Money
from portal.core.pool_ping import ping_when_idle
from portal.domain.errors import DomainError

# No row id lies outside BIGINT: one from a request that does is no row's, and the
# database could not even compare it with a column. One bound, the domain's.
from portal.domain.text_input import MAX_ID as MAX_ID

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Identity keys are BIGINT on PostgreSQL; SQLite only auto-increments INTEGER.
Id = BigInteger().with_variant(Integer(), "sqlite")


def storable_ids(ids: Iterable[int | None]) -> set[int]:
    """Those of ``ids`` that could name a row (the others name none)."""
    return {i for i in ids if i is not None and 0 < i <= MAX_ID}


class UtcDateTime(TypeDecorator[datetime]):
    """Timestamps are stored in UTC and always come back timezone-aware.

    SQLite keeps no zone, so values are normalised on the way in and stamped on the
    way out; PostgreSQL's ``timestamptz`` does the same natively.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        # PostgreSQL sessions are pinned to UTC at connect (``make_engine``), so psycopg
        # already returns aware UTC datetimes: no per-value Python call (a list page
        # reads hundreds of them).
        if dialect.name == "postgresql":
            return None
        return super().result_processor(dialect, coltype)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        int: Id,
        datetime: UtcDateTime(),
        Decimal: Money(),
        str: String(255),
    }


def table_of(model: type[Base]) -> Table:
    """A model's table, for the prebuilt Core statements of the hot paths. Declarative
    typing says ``FromClause`` because a model may be mapped to any selectable; every
    model here is mapped to a ``Table``."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


def rows_changed(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE touched: ``Session.execute`` answers such a
    statement with a ``CursorResult``, though it is typed as any ``Result``."""
    assert isinstance(result, CursorResult)
    return result.rowcount


class CreatedAt:
    """Mixin: when the row was written (UTC, from the clock of the service that wrote it)."""

    created_at: Mapped[datetime]


class Timestamps(CreatedAt):
    """Mixin: when the row was written, and when it last changed."""

    updated_at: Mapped[datetime]


class TenantScoped:
    """Mixin for every table that belongs to one organization.

    Adds ``org_id`` and the ``(org_id, id)`` unique key that composite foreign keys
    point at, so a row of organization A can never reference a row of organization B.
    Deleting an organization never cascades into its rows (RESTRICT): organizations are
    archived, and a tenant's history outlives any mistake.
    """

    # A table whose rows may also belong to no organization (the outbox's account mail):
    # a unit of work without a tenant sees exactly those rows.
    platform_rows: bool = False

    @declared_attr
    def org_id(cls) -> Mapped[int]:  # noqa: N805 - declared_attr receives the class
        # No index of its own: the (org_id, id) unique key leads with it.
        return mapped_column(Id, ForeignKey("organization.id", ondelete="RESTRICT"), nullable=False)

    @classmethod
    def tenant_key(cls) -> UniqueConstraint:
        return UniqueConstraint("org_id", "id")


def tenant_fk(column: str, target_table: str, **options: Any) -> ForeignKeyConstraint:
    """A composite foreign key ``(org_id, column) -> target(org_id, id)``.

    Composite keys make a cross-tenant link unrepresentable, whatever the code does.
    """
    return ForeignKeyConstraint(
        ["org_id", column], [f"{target_table}.org_id", f"{target_table}.id"], **options
    )


class TenantNotSet(DomainError):
    """An org-scoped table was touched in a unit of work that names no organization."""

    def __init__(self) -> None:
        super().__init__("tenant_not_set")


class CrossTenantWrite(DomainError):
    def __init__(self) -> None:
        super().__init__("cross_tenant_write")


def _mapper_classes(state: ORMExecuteState) -> list[type]:
    return [m.class_ for m in state.all_mappers]


@event.listens_for(Session, "do_orm_execute")
def _scope_to_tenant(state: ORMExecuteState) -> None:
    if not (state.is_select or state.is_update or state.is_delete):
        return
    if state.is_column_load or state.is_relationship_load:
        return  # the parent load was already scoped
    if not any(issubclass(c, TenantScoped) for c in _mapper_classes(state)):
        return
    org_id = state.session.info.get("org_id")
    scoped = [c for c in _mapper_classes(state) if issubclass(c, TenantScoped)]
    if org_id is None and not all(c.platform_rows for c in scoped):
        # A user's own memberships across organizations (the org switcher, the actor)
        # are read with SQLAlchemy Core and an explicit user predicate, under
        # PostgreSQL's app.current_user policy; the ORM always names an organization.
        raise TenantNotSet()
    if org_id is None:  # platform rows only: no organization's rows
        criteria = with_loader_criteria(
            TenantScoped, lambda cls: cls.org_id.is_(None), include_aliases=True
        )
    else:
        criteria = with_loader_criteria(
            TenantScoped, lambda cls: cls.org_id == org_id, include_aliases=True
        )
    state.statement = state.statement.options(criteria)


@event.listens_for(Session, "before_flush")
def _stamp_tenant(session: Session, _ctx: Any, _instances: Any) -> None:
    org_id = session.info.get("org_id")
    for obj in list(session.new) + list(session.dirty):
        if not isinstance(obj, TenantScoped):
            continue
        if org_id is None:
            if obj.platform_rows and obj.org_id is None:
                continue
            raise TenantNotSet()
        if obj.org_id is None:
            obj.org_id = org_id
        elif obj.org_id != org_id:
            raise CrossTenantWrite()


def _configure_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin, so that
    # SAVEPOINTs behave (the driver's implicit BEGIN would otherwise break them).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    cursor.close()


def _begin_sqlite_transaction(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN")


def make_engine(url: str, *, pool_size: int = 5, **kwargs: Any) -> Engine:
    if url.startswith("sqlite"):
        if url in {"sqlite://", "sqlite:///:memory:"}:
            kwargs.setdefault("poolclass", StaticPool)
        kwargs.setdefault("connect_args", {"check_same_thread": False})
        engine = create_engine(url, **kwargs)
        event.listen(engine, "connect", _configure_sqlite_connection)
        event.listen(engine, "begin", _begin_sqlite_transaction)
        return engine
    # Every session in UTC, whatever the server's default: timestamps come back as aware
    # UTC datetimes (UtcDateTime relies on it) and SQL date arithmetic is in UTC.
    connect_args = dict(kwargs.pop("connect_args", {}))
    connect_args["options"] = f"{connect_args.get('options', '')} -c TimeZone=UTC".strip()
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size * 2,
        connect_args=connect_args,
        **kwargs,
    )
    ping_when_idle(engine)
    return engine


class Database:
    """Holds the engine and the session factory for this process.

    One instance lives in ``portal.extensions``; ``create_app`` configures it, RQ
    workers re-configure it after forking. Tests may pin every session to one
    connection (``pin_to``) so each test runs inside a transaction that is rolled back.
    """

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self._factory: sessionmaker[Session] | None = None

    def configure(self, url: str, *, pool_size: int = 5, **engine_kwargs: Any) -> None:
        if self.engine is not None:
            self.engine.dispose()
        self.engine = make_engine(url, pool_size=pool_size, **engine_kwargs)
        self._factory = sessionmaker(bind=self.engine, expire_on_commit=False, autoflush=True)

    def pin_to(self, connection: Connection | None) -> None:
        """Bind new sessions to ``connection`` (savepoints), or back to the engine."""
        assert self.engine is not None
        if connection is None:
            self._factory = sessionmaker(bind=self.engine, expire_on_commit=False)
        else:
            self._factory = sessionmaker(
                bind=connection,
                expire_on_commit=False,
                join_transaction_mode="create_savepoint",
            )

    def new_session(self) -> Session:
        if self._factory is None:
            raise RuntimeError("the database is not configured; call create_app() first")
        scope, engine = current_scope(), self.engine
        bound_to_engine = self._factory.kw.get("bind") is engine
        if scope is not None and engine is not None and bound_to_engine:
            connection = scope.connection(engine)
            if scope.carried and connection.in_transaction():
                # The first unit of work after a carried read takes its transaction
                # over (and gives it its own settings, ``core.scope``): its commit or
                # rollback ends it.
                scope.carried = False
                return Session(
                    bind=connection, expire_on_commit=False, join_transaction_mode="control_fully"
                )
            # A unit of work opened inside another (the scope's connection is busy)
            # takes a connection of its own, as it would without the scope: it must
            # neither join the outer transaction nor reset its tenant.
            if not connection.in_transaction():
                return Session(bind=connection, expire_on_commit=False)
        return self._factory()

    def carryable_connection(self) -> Connection | None:
        """In a request's scope, on the engine, with no transaction open: its
        connection, on which a read may begin a transaction to carry (``carry``). None
        otherwise (a test's pinned connection, a worker, the CLI)."""
        scope, engine = current_scope(), self.engine
        if scope is None or engine is None or self._factory is None:
            return None
        if self._factory.kw.get("bind") is not self.engine:  # pinned to a connection
            return None
        connection = scope.connection(engine)
        return None if connection.in_transaction() else connection

    def carry(self) -> None:
        """Leave the transaction open on the scope's connection for the next unit of
        work to take over (``new_session``)."""
        scope = current_scope()
        if scope is None:
            raise RuntimeError("only a request's scope carries a transaction")
        scope.carried = True

    def serving_request(self) -> bool:
        """Whether this context serves a web request (inside ``connection_scope``)."""
        return current_scope() is not None

    def connection_scope(self) -> AbstractContextManager[None]:
        """One pooled connection for every unit of work within (``core.connection_scope``)."""
        return connection_scope()

    @property
    def dialect(self) -> str:
        assert self.engine is not None
        return self.engine.dialect.name

    def dispose(self, *, close: bool = True) -> None:
        if self.engine is not None:
            self.engine.dispose(close=close)


db = Database()

__all__ = [
    "Base",
    "CrossTenantWrite",
    "Database",
    "Id",
    "TenantNotSet",
    "TenantScoped",
    "UtcDateTime",
    "db",
    "tenant_fk",
]
