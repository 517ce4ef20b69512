"""One unit of work = one transaction, the tenant set once, side effects after commit.

Services open exactly one of these per public call::

    with unit_of_work_for(actor) as uow:
        uow.session.add(...)
        uow.after_commit(lambda: queue.enqueue(...))

The session's ``info`` carries the organization; ``core.db`` turns it into the ORM
filter and into PostgreSQL's ``app.current_org`` for row-level security.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from portal.core.db import db
from portal.core.scope import begin_scoped, scope_values


@dataclass
class UnitOfWork:
    session: Session
    _after_commit: list[Callable[[], object]] = field(default_factory=list)

    def after_commit(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` only if, and after, the transaction commits."""
        self._after_commit.append(callback)


@contextmanager
def unit_of_work(
    org_id: int | None,
    *,
    user_id: int | None = None,
    email: str | None = None,
    operator: bool = False,
) -> Iterator[UnitOfWork]:
    session = db.new_session()
    session.info.update(org_id=org_id, user_id=user_id, email=email, operator=operator)
    uow = UnitOfWork(session)
    try:
        with session.begin():
            yield uow
    finally:
        session.close()
    for callback in uow._after_commit:
        callback()


class ActsInAnOrganization(Protocol):
    """What a unit of work needs of whoever acts: the organization, and the user (none
    for the platform itself)."""

    @property
    def org_id(self) -> int: ...

    @property
    def user_id(self) -> int | None: ...


def unit_of_work_for(actor: ActsInAnOrganization) -> AbstractContextManager[UnitOfWork]:
    """The unit of work of one service call made by ``actor``, in their organization."""
    return unit_of_work(actor.org_id, user_id=actor.user_id)


@contextmanager
def platform_work(*, user_id: int | None = None, email: str | None = None) -> Iterator[UnitOfWork]:
    """A unit of work outside any organization about one account: the signed-in user
    (``user_id``), or the one address an anonymous sign-in or reset asks about
    (``email``). Row-level security shows it that account and nothing else."""
    with unit_of_work(None, user_id=user_id, email=email) as uow:
        yield uow


@contextmanager
def carried_read(*, user_id: int) -> Iterator[Connection]:
    """A read about the signed-in account (``platform_work``'s scope) whose transaction,
    in a web request, is not ended but carried into the request's next unit of work,
    which takes it over with its own settings: reading the user and then the page is
    one transaction. For reads only — nothing written here would be committed unless
    that next unit of work commits. Elsewhere, a ``platform_work`` of its own."""
    connection = db.carryable_connection()
    if connection is None:
        with platform_work(user_id=user_id) as uow:
            yield uow.session.connection()
        return
    transaction = connection.begin()
    try:
        begin_scoped(connection, scope_values({"user_id": user_id}))
        yield connection
    except BaseException:
        transaction.rollback()
        raise
    db.carry()


class OperatorInWebRequest(RuntimeError):
    """The platform's own scope was asked for while serving a web request."""


@contextmanager
def operator_work(org_id: int | None = None) -> Iterator[UnitOfWork]:
    """The platform operator's unit of work (the CLI, seeding, workers' sweeps): it may
    create organizations and see every one and every account; with ``org_id``, it also
    writes in that organization (enrolling an existing account). Never available while
    a web request is served, whatever a view calls."""
    if db.serving_request():
        raise OperatorInWebRequest("operator scope inside a web request")
    with unit_of_work(org_id, operator=True) as uow:
        yield uow
