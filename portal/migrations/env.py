"""Alembic environment: runs online against the URL `portal db upgrade` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from portal.accounts import models as _accounts  # noqa: F401  (registers tables)
from portal.audit import models as _audit  # noqa: F401
from portal.core import heartbeat as _heartbeat  # noqa: F401
from portal.core import outbox as _outbox  # noqa: F401
from portal.core.db import Base
from portal.deadlines import models as _deadlines  # noqa: F401
from portal.delegations import models as _delegations  # noqa: F401
from portal.documents import models as _documents  # noqa: F401
from portal.flows import models as _flows  # noqa: F401
from portal.notifications import models as _notifications  # noqa: F401
from portal.orgchart import models as _orgchart  # noqa: F401

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("no database URL: run migrations through `portal db upgrade`")
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("offline migrations are not supported; run `portal db upgrade`")
run_migrations_online()
