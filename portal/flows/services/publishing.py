"""Publishing: validate a draft and append it as the next immutable version, consuming
the draft; and seeding, which appends version 1 of the seeded flows. Versions never
change, so a published one goes straight into the version cache."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.queries import base_currency_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work, unit_of_work_for
from portal.domain import graph_json
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import Conflict
from portal.domain.graph import Graph
from portal.domain.validate import errors_in, validate
from portal.flows import seeded
from portal.flows.models import FlowDraft, FlowVersion
from portal.flows.queries import VersionView, latest_version_in, version_cache, version_view_in
from portal.flows.services.drafts import DraftView, draft_in, no_draft_error_in, stale_revision
from portal.flows.services.validation import FlowInvalid, check_kind, validate_in


@dataclass(frozen=True)
class Published:
    """What publishing answers: the version it appended, and the draft the editor opens
    next (that version, not yet edited)."""

    view: VersionView
    draft: DraftView


def append_version_in(session: Session, graph: Graph, *, published_by: int | None) -> FlowVersion:
    """Insert ``graph`` as the next version of its kind."""
    graph = graph.normalised()
    latest = latest_version_in(session, graph.kind)
    row = FlowVersion(
        kind=graph.kind,
        version=(latest.version if latest else 0) + 1,
        graph=graph_json.to_json(graph),
        digest=graph_json.digest_of(graph),
        published_at=clock.now(),
        published_by=published_by,
    )
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        # Two publishes of one kind raced for the same number; the loser retries by hand.
        raise Conflict("version_conflict", kind=graph.kind) from None
    return row


def publish_draft(actor: Actor, kind: str, *, revision: int) -> Published:
    """Validate the draft saved at ``revision`` and append it as the next version.

    Refuses with ``flow_invalid`` (and every violation) when it has errors; the draft
    stays for the admin to fix. On success the draft is consumed."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        row = s.scalars(select(FlowDraft).where(FlowDraft.kind == kind).with_for_update()).first()
        if row is None:
            raise no_draft_error_in(s, kind)
        if row.revision != revision:
            raise stale_revision(row.revision)
        graph = graph_json.from_json(row.graph)
        violations = validate_in(s, actor.org_id, graph)
        if errors_in(violations):
            raise FlowInvalid(violations)
        version = append_version_in(s, graph, published_by=actor.member_id)
        s.delete(row)
        s.flush()
        view = version_view_in(s, version)
        draft = draft_in(s, actor.org_id, kind)
    version_cache.put((actor.org_id, kind, view.version), view)
    return Published(view, draft)


def seed_flows(org_id: int) -> list[str]:
    """Publish version 1 of every seeded flow this organization has never published.
    Idempotent, and never touches a kind the organization already has a version of.
    Returns the kinds it published."""
    published = []
    with unit_of_work(org_id) as uow:
        s = uow.session
        currency = base_currency_in(s, org_id)
        existing = set(s.scalars(select(FlowVersion.kind).distinct()))
        for graph in seeded.seeded_graphs(currency):
            if graph.kind in existing:
                continue
            errors = errors_in(validate(graph, base_currency=currency))
            if errors:  # pragma: no cover - the seeded-flow test keeps this from happening
                raise FlowInvalid(errors)
            append_version_in(s, graph, published_by=None)
            published.append(graph.kind)
    return published
