"""Reading published flow versions: what documents are decided under, and what other
features call inside their own unit of work (``version_in``, ``current_version_in``).

Versions never change, so a loaded one is cached in-process, keyed by organization.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.cache import LruCache
from portal.core.uow import unit_of_work_for
from portal.domain import graph_json
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.errors import NotFound
from portal.domain.graph import Graph
from portal.flows.models import FlowVersion

# No revision or version number beyond this is ever issued; a larger one from a request
# is refused here, since the database could not even compare it with a column.
MAX_NUMBER = 2**31 - 1


@dataclass(frozen=True)
class VersionView:
    kind: str
    version: int
    graph: Graph
    digest: str
    published_at: datetime
    published_by: str | None  # None: published by the platform (the seeded v1)


# Loaded versions by (org, kind, version). Versions are immutable, so an entry never goes
# stale; the org is part of the key, so one tenant never reads another's.
version_cache: LruCache[tuple[int, str, int], VersionView] = LruCache(512)


def latest_version_in(session: Session, kind: str) -> FlowVersion | None:
    return session.scalars(
        select(FlowVersion).where(FlowVersion.kind == kind).order_by(FlowVersion.version.desc())
    ).first()


def version_view_in(session: Session, row: FlowVersion) -> VersionView:
    names = member_names(session, [row.published_by])
    return VersionView(
        kind=row.kind,
        version=row.version,
        graph=graph_json.from_json(row.graph),
        digest=row.digest,
        published_at=row.published_at,
        published_by=names.get(row.published_by) if row.published_by else None,
    )


def get_version(actor: Actor | SystemActor, kind: str, version: int) -> VersionView:
    """One published version. Any member may read it: documents are decided under it."""
    cached = version_cache.get((actor.org_id, kind, version))
    if cached is not None:  # versions never change: no need to open a transaction
        return cached
    with unit_of_work_for(actor) as uow:
        return version_in(uow.session, actor.org_id, kind, version)


def version_in(session: Session, org_id: int, kind: str, version: int) -> VersionView:
    """``get_version`` inside the caller's unit of work (the engine's transaction)."""
    if not 1 <= version <= MAX_NUMBER:
        raise NotFound("flow_version")
    key = (org_id, kind, version)
    cached = version_cache.get(key)
    if cached is not None:
        return cached
    row = session.scalars(
        select(FlowVersion).where(FlowVersion.kind == kind, FlowVersion.version == version)
    ).first()
    if row is None:
        raise NotFound("flow_version")
    view = version_view_in(session, row)
    version_cache.put(key, view)
    return view


def current_version_in(session: Session, org_id: int, kind: str) -> tuple[int, VersionView]:
    """The newest version of a kind and its row id, inside the caller's unit of work."""
    row = session.execute(
        select(FlowVersion.id, FlowVersion.version)
        .where(FlowVersion.kind == kind)
        .order_by(FlowVersion.version.desc())
        .limit(1)
    ).first()
    if row is None:
        raise NotFound("flow")
    return row.id, version_in(session, org_id, kind, row.version)


def current_version(actor: Actor | SystemActor, kind: str) -> VersionView:
    """The newest version of a kind: the one new documents start on."""
    with unit_of_work_for(actor) as uow:
        number = uow.session.scalar(
            select(func.max(FlowVersion.version)).where(FlowVersion.kind == kind)
        )
    if number is None:
        raise NotFound("flow")
    return get_version(actor, kind, number)


@dataclass(frozen=True)
class VersionSummary:
    version: int
    digest: str
    published_at: datetime
    published_by: str | None


def versions_in(session: Session, kind: str) -> list[VersionSummary]:
    """Every version of a kind, newest first, inside the caller's unit of work."""
    rows = session.execute(
        select(
            FlowVersion.version,
            FlowVersion.digest,
            FlowVersion.published_at,
            FlowVersion.published_by,
        )
        .where(FlowVersion.kind == kind)
        .order_by(FlowVersion.version.desc())
    ).all()
    names = member_names(session, [r.published_by for r in rows])
    return [
        VersionSummary(r.version, r.digest, r.published_at, names.get(r.published_by)) for r in rows
    ]


def list_versions(actor: Actor, kind: str) -> list[VersionSummary]:
    """Newest first."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return versions_in(uow.session, kind)


def published_kinds_in(session: Session) -> list[tuple[str, int]]:
    """Every kind with a published version, with its newest version number, by kind."""
    return [
        (kind, number)
        for kind, number in session.execute(
            select(FlowVersion.kind, func.max(FlowVersion.version))
            .group_by(FlowVersion.kind)
            .order_by(FlowVersion.kind)
        )
    ]
