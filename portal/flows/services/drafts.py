"""Drafts: one mutable graph per (organization, kind) with a ``revision``. A save names
the revision it was edited from, and a stale one is refused (409) rather than silently
overwriting a colleague's work. An invalid graph is saved too, with its violations:
only publishing refuses. One unit of work per public call; the ``*_in`` helpers run in
the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.clock import clock
from portal.core.db import rows_changed
from portal.core.uow import unit_of_work_for
from portal.domain import graph_json
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import Conflict, DomainError, NotFound
from portal.domain.graph import Graph
from portal.domain.validate import Violation, errors_in
from portal.flows.models import FlowDraft
from portal.flows.queries import latest_version_in, version_in
from portal.flows.services.validation import check_kind, check_revision, validate_in


@dataclass(frozen=True)
class DraftView:
    kind: str
    # 0 = nothing saved yet: the graph is the current version, ready to edit.
    revision: int
    base_version: int | None
    graph: Graph
    violations: list[Violation]
    updated_at: datetime | None
    updated_by: str | None
    # Who saved it last, to tell the reader whether that was them.
    updated_by_id: int | None = None

    @property
    def saved(self) -> bool:
        return self.revision > 0

    @property
    def publishable(self) -> bool:
        return self.saved and not errors_in(self.violations)


def _check_encodable(graph: Graph) -> None:
    """The loader refuses lone UTF-16 surrogates ("\\ud800"); a graph built in code could
    still carry one, and no page, export or digest could encode it."""
    try:
        graph_json.canonical_json(graph).encode("utf-8")
    except UnicodeEncodeError:
        raise graph_json.GraphFormatError("graph_not_utf8") from None


def draft_view_in(session: Session, org_id: int, row: FlowDraft) -> DraftView:
    graph = graph_json.from_json(row.graph)
    return DraftView(
        kind=row.kind,
        revision=row.revision,
        base_version=row.base_version,
        graph=graph,
        violations=validate_in(session, org_id, graph),
        updated_at=row.updated_at,
        updated_by=member_names(session, [row.updated_by]).get(row.updated_by)
        if row.updated_by
        else None,
        updated_by_id=row.updated_by,
    )


def draft_in(session: Session, org_id: int, kind: str) -> DraftView:
    """The saved draft, or — when there is none — the current version as an unsaved
    draft (revision 0), judged. 404 for a kind that has neither."""
    row = session.scalars(select(FlowDraft).where(FlowDraft.kind == kind)).first()
    if row is not None:
        return draft_view_in(session, org_id, row)
    latest = latest_version_in(session, kind)
    if latest is None:
        raise NotFound("flow")
    graph = graph_json.from_json(latest.graph)
    return DraftView(
        kind=kind,
        revision=0,
        base_version=latest.version,
        graph=graph,
        violations=validate_in(session, org_id, graph),
        updated_at=None,
        updated_by=None,
    )


def draft_graph_in(session: Session, kind: str) -> Graph:
    """The graph the editor works on — the saved draft, or the current version when
    there is none — without judging it. 404 for a kind that has neither."""
    stored = session.scalar(select(FlowDraft.graph).where(FlowDraft.kind == kind))
    if stored is None:
        latest = latest_version_in(session, kind)
        if latest is None:
            raise NotFound("flow")
        stored = latest.graph
    return graph_json.from_json(stored)


def no_draft_error_in(session: Session, kind: str) -> DomainError:
    """No draft to act on: published or discarded since the page was loaded (a second
    click, a colleague) — or, for a kind this organization does not have, not found."""
    if latest_version_in(session, kind) is None:
        return NotFound("flow")
    return Conflict("draft_gone")


def stale_revision(current: int) -> Conflict:
    """The refusal of a save or publish made from an older revision than ``current``."""
    return Conflict("stale_revision", current=current)


# --- reading ----------------------------------------------------------------------------


def get_draft(actor: Actor, kind: str) -> DraftView:
    """The saved draft, or — when there is none — the current version as an unsaved
    draft (revision 0) so the editor always opens on something. 404 for a kind that
    has neither."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        return draft_in(uow.session, actor.org_id, kind)


def draft_graph(actor: Actor, kind: str) -> Graph:
    """The graph the editor works on, without judging it. 404 for a kind that has
    neither a draft nor a version."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        return draft_graph_in(uow.session, kind)


# --- writing ----------------------------------------------------------------------------


def save_draft_in(
    session: Session, actor: Actor, kind: str, graph: Graph, *, revision: int
) -> DraftView:
    """``save_draft`` inside the caller's unit of work."""
    check_kind(kind)
    check_revision(revision)
    _check_encodable(graph)
    if graph.kind != kind:
        raise DomainError("graph_kind_mismatch", kind=graph.kind[:64], expected=kind)
    data = graph_json.to_json(graph.normalised())
    now = clock.now()
    if revision == 0:
        existing = session.scalar(select(FlowDraft.revision).where(FlowDraft.kind == kind))
        if existing is not None:
            raise stale_revision(existing)
        latest = latest_version_in(session, kind)
        row = FlowDraft(
            kind=kind,
            revision=1,
            base_version=latest.version if latest else None,
            graph=data,
            updated_at=now,
            updated_by=actor.member_id,
        )
        session.add(row)
        try:
            session.flush()
        except IntegrityError:
            # Someone created the draft between our check and our insert.
            raise stale_revision(0) from None
    else:
        # Conditional on the revision the editor saw: a concurrent save makes it 0 rows.
        result = session.execute(
            update(FlowDraft)
            .where(FlowDraft.kind == kind, FlowDraft.revision == revision)
            .values(revision=revision + 1, graph=data, updated_at=now, updated_by=actor.member_id)
            .execution_options(synchronize_session=False)
        )
        if rows_changed(result) != 1:
            current = session.scalar(select(FlowDraft.revision).where(FlowDraft.kind == kind))
            raise stale_revision(current or 0)
        row = session.scalars(select(FlowDraft).where(FlowDraft.kind == kind)).one()
        session.refresh(row)
    return draft_view_in(session, actor.org_id, row)


def save_draft(actor: Actor, kind: str, graph: Graph, *, revision: int) -> DraftView:
    """Replace the kind's draft with ``graph``, edited from ``revision`` (0: there was no
    draft). An invalid graph is saved too, and its violations come back: only
    publishing refuses."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return save_draft_in(uow.session, actor, kind, graph, revision=revision)


def discard_draft(actor: Actor, kind: str, *, revision: int) -> DraftView | None:
    """Delete the draft saved at ``revision``. Answers what the editor opens next: the
    current version as an unsaved draft — or None for a kind never published, which
    has nothing left to edit."""
    require_admin(actor)
    check_kind(kind)
    check_revision(revision)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        result = s.execute(
            delete(FlowDraft)
            .where(FlowDraft.kind == kind, FlowDraft.revision == revision)
            .execution_options(synchronize_session=False)
        )
        if rows_changed(result) != 1:
            current = s.scalar(select(FlowDraft.revision).where(FlowDraft.kind == kind))
            if current is None:
                raise no_draft_error_in(s, kind)
            raise stale_revision(current)
        try:
            return draft_in(s, actor.org_id, kind)
        except NotFound:
            return None


def draft_from_version(actor: Actor, kind: str, version: int, *, revision: int) -> DraftView:
    """Replace the draft (edited from ``revision``; 0 when there is none) with a copy of
    a published version: "start a draft from this version"."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        graph = version_in(s, actor.org_id, kind, version).graph
        return save_draft_in(s, actor, kind, graph, revision=revision)
