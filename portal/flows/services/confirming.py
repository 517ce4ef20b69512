"""What the flow page's "Publish" asks before it publishes: the draft as saved (its
revision and verdict) and what publishing it would change against the current version,
read in one unit of work so the confirmation and the revision it posts agree."""

from __future__ import annotations

from dataclasses import dataclass

from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import NotFound
from portal.domain.graph import Graph
from portal.domain.graph_diff import diff
from portal.flows.queries import current_version_in
from portal.flows.services.drafts import DraftView, draft_in
from portal.flows.services.pages import DraftChanges
from portal.flows.services.references import references_in
from portal.flows.services.validation import check_kind


@dataclass(frozen=True)
class PublishConfirmation:
    draft: DraftView
    changes: DraftChanges

    @property
    def next_version(self) -> int:
        return (self.draft.base_version or 0) + 1


def publish_confirmation(actor: Actor, kind: str) -> PublishConfirmation:
    """The draft and what publishing it would change. 404 for a kind this organization
    lacks; a kind with no saved draft answers its current version unsaved (revision
    0), which the page says cannot be published."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        draft = draft_in(s, actor.org_id, kind)
        try:
            current: Graph | None = current_version_in(s, actor.org_id, kind)[1].graph
        except NotFound:
            current = None
        named = (draft.graph,) if current is None else (current, draft.graph)
        changes = DraftChanges(
            diff(current, draft.graph), current, draft.graph, references_in(s, *named)
        )
        return PublishConfirmation(draft, changes)
