"""Everything one flow admin page or editor request needs, read in one unit of work:
the list with its readiness warnings, one flow with its versions, the editor, the
grant pickers, and what publishing the draft would change."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from portal.accounts.queries import base_currency_in, member_directory_in, today_in
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import NotFound
from portal.domain.graph import Graph
from portal.domain.graph_diff import GraphDiff, diff
from portal.flows.queries import VersionSummary, current_version_in, versions_in
from portal.flows.services.drafts import DraftView, draft_graph_in, draft_in
from portal.flows.services.listing import FlowSummary, flows_in
from portal.flows.services.readiness import ReadinessWarning, readiness_in
from portal.flows.services.references import References, references_in
from portal.flows.services.validation import check_kind
from portal.orgchart.queries import Choice, position_choices_in


@dataclass(frozen=True)
class FlowsOverview:
    flows: list[FlowSummary]
    warnings: list[ReadinessWarning]


def flows_overview(actor: Actor, *, as_of: date | None = None) -> FlowsOverview:
    """The flows list: every kind, and the grants that can no longer find an approver."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        warnings = readiness_in(s, actor.org_id, as_of or today_in(s, actor))
        return FlowsOverview(flows_in(s, actor.org_id), warnings)


@dataclass(frozen=True)
class FlowPage:
    draft: DraftView
    versions: list[VersionSummary]  # newest first
    names: References


def flow_page(actor: Actor, kind: str) -> FlowPage:
    """One flow: its draft (or current version) judged, its versions, and names for the
    members and seats its grants point at. 404 for a kind this organization lacks."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        draft = draft_in(s, actor.org_id, kind)
        return FlowPage(draft, versions_in(s, kind), references_in(s, draft.graph))


@dataclass(frozen=True)
class EditorPage:
    graph: Graph
    # Grant floors are written in it.
    currency: str


def editor_page(actor: Actor, kind: str) -> EditorPage:
    """What the editor's page needs besides what its script loads: the graph (for its
    name, unjudged) and the base currency. 404 for a kind this organization lacks."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        return EditorPage(draft_graph_in(s, kind), base_currency_in(s, actor.org_id))


@dataclass(frozen=True)
class GrantPickers:
    """Who a grant may name: active members, and active seats."""

    members: list[Choice]
    positions: list[Choice]


def grant_pickers(actor: Actor) -> GrantPickers:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        members = [Choice(m.id, f"{m.name} <{m.email}>") for m in member_directory_in(s)]
        return GrantPickers(members, position_choices_in(s))


@dataclass(frozen=True)
class DraftChanges:
    """What publishing the draft would change, with both graphs (the removed items'
    labels are in the one before) and names for the members and seats grants name."""

    diff: GraphDiff
    before: Graph | None
    after: Graph
    names: References


def draft_changes(actor: Actor, kind: str) -> DraftChanges:
    """What publishing the draft would change against the current version."""
    require_admin(actor)
    check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        draft = draft_graph_in(s, kind)
        try:
            current: Graph | None = current_version_in(s, actor.org_id, kind)[1].graph
        except NotFound:
            current = None
        named = (draft,) if current is None else (current, draft)
        return DraftChanges(diff(current, draft), current, draft, references_in(s, *named))
