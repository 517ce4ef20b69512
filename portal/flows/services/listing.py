"""The organization's flows, one line per kind: published, drafted, or both."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.core.uow import unit_of_work_for
from portal.domain import graph_json
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.labels import Labels
from portal.flows.models import FlowDraft, FlowVersion
from portal.flows.queries import version_in


@dataclass(frozen=True)
class FlowSummary:
    kind: str
    labels: Labels
    current_version: int | None
    published_at: datetime | None
    draft_revision: int | None
    draft_updated_at: datetime | None


def flows_in(session: Session, org_id: int) -> list[FlowSummary]:
    """``list_flows`` inside the caller's unit of work."""
    latest = {
        kind: (version, published_at)
        for kind, version, published_at in session.execute(
            select(
                FlowVersion.kind,
                func.max(FlowVersion.version),
                func.max(FlowVersion.published_at),
            ).group_by(FlowVersion.kind)
        )
    }
    drafts = {d.kind: d for d in session.scalars(select(FlowDraft))}
    # Labels come from the (cached) current version, else from the draft.
    labels = {
        kind: version_in(session, org_id, kind, number).graph.labels
        for kind, (number, _) in latest.items()
    }
    for kind, d in drafts.items():
        labels.setdefault(kind, graph_json.from_json(d.graph).labels)
    return [
        FlowSummary(
            kind=kind,
            labels=labels[kind],
            current_version=latest[kind][0] if kind in latest else None,
            published_at=latest[kind][1] if kind in latest else None,
            draft_revision=drafts[kind].revision if kind in drafts else None,
            draft_updated_at=drafts[kind].updated_at if kind in drafts else None,
        )
        for kind in sorted(set(latest) | set(drafts))
    ]


def list_flows(actor: Actor | SystemActor) -> list[FlowSummary]:
    """Every kind this organization has published or is drafting, by kind."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return flows_in(uow.session, actor.org_id)
