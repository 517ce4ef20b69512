"""A flow as a file: export a version or the draft as JSON, and import such a file into
a draft. Malformed JSON or a wrong shape is refused naming the path and changes
nothing; a well-formed but invalid graph is saved with its violations, like any draft."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from portal.core.uow import unit_of_work_for
from portal.domain import graph_json
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import KEY_PATTERN
from portal.flows.models import FlowDraft
from portal.flows.queries import latest_version_in, version_in
from portal.flows.services.drafts import DraftView, save_draft_in
from portal.flows.services.validation import check_kind


def import_draft(
    actor: Actor, document: str | bytes, *, kind: str | None = None, revision: int = 0
) -> DraftView:
    """Load a graph document (as exported) into a draft: of ``kind`` over the draft at
    ``revision``, or — with no kind — of the kind the document names, which must have
    no draft yet."""
    require_admin(actor)
    graph = graph_json.loads(document)
    if kind is None:
        kind = graph.kind
        if not KEY_PATTERN.fullmatch(kind):
            raise DomainError("flow_kind_invalid", field="file", kind=kind[:64])
        new = True
    else:
        new = False
    with unit_of_work_for(actor) as uow:
        s = uow.session
        if new and s.scalar(select(FlowDraft.id).where(FlowDraft.kind == kind)):
            raise DomainError("draft_exists", field="file", kind=kind)
        return save_draft_in(s, actor, kind, graph, revision=revision)


@dataclass(frozen=True)
class Export:
    filename: str
    body: str


def export_flow(actor: Actor, kind: str, *, version: int | None = None) -> Export:
    """The JSON of a version (``version``), or of the draft (``version=None``; the
    current version when there is no draft) as it is saved, errors and all."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        if version is not None:
            graph = version_in(s, actor.org_id, kind, version).graph
            filename = f"{kind}-v{version}.json"
        else:
            draft = s.execute(
                select(FlowDraft.graph, FlowDraft.revision).where(FlowDraft.kind == kind)
            ).first()
            if draft is not None:
                graph = graph_json.from_json(draft.graph)
                filename = f"{kind}-draft-r{draft.revision}.json"
            else:
                latest = latest_version_in(s, kind)
                if latest is None:
                    raise NotFound("flow")
                graph = graph_json.from_json(latest.graph)
                filename = f"{kind}-v{latest.version}.json"
    return Export(filename, graph_json.dumps(graph.normalised()))
