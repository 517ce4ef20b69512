"""Flow drafts and published versions: save, discard, publish, load, import, export,
seed, and the readiness check. One unit of work per public call.

A draft is one mutable graph per (organization, kind) with a ``revision``: a save names
the revision it was edited from, and a stale one is refused (409) rather than silently
overwriting a colleague's work. Publishing validates — the pure rules plus what only
the database knows (do the named members and seats exist and are they active) — and
appends version n+1, consuming the draft. Versions never change, so a loaded one is
cached in-process.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization
from portal.accounts.queries import member_names
from portal.core.clock import clock
from portal.core.uow import unit_of_work, unit_of_work_for
from portal.domain import graph_json
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import Conflict, DomainError, NotFound
from portal.domain.graph import (
    KEY_PATTERN,
    GranteeKind,
    Graph,
    Labels,
    OnVacancy,
)
from portal.domain.graph_diff import GraphDiff, diff
from portal.domain.graph_json import GraphFormatError, canonical_json, digest_of
from portal.domain.validate import Violation, errors_in, grantee_violations, validate
from portal.flows import seeded
from portal.flows.models import FlowDraft, FlowVersion
from portal.flows.queries import (
    MAX_NUMBER,
    VersionView,
    current_version,
    get_version,
    latest_version_in,
    version_cache,
    version_view_in,
)
from portal.orgchart.models import Position, PositionHolding


class FlowInvalid(DomainError):
    """Publishing refused: the graph has errors. Carries every violation."""

    def __init__(self, violations: list[Violation]) -> None:
        super().__init__("flow_invalid", num=len(errors_in(violations)))
        self.violations = violations


# --- views returned to callers ----------------------------------------------------------


@dataclass(frozen=True)
class FlowSummary:
    kind: str
    labels: Labels
    current_version: int | None
    published_at: datetime | None
    draft_revision: int | None
    draft_updated_at: datetime | None


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


@dataclass(frozen=True)
class ReadinessWarning:
    """A grant of a current version that can no longer resolve to anybody."""

    kind: str
    version: int
    grant: int  # index in the version's grants
    state: str | None
    code: str
    params: dict[str, Any]


# --- helpers ----------------------------------------------------------------------------


def _check_kind(kind: str) -> str:
    if not KEY_PATTERN.match(kind):
        raise NotFound("flow")
    return kind


def _check_revision(revision: int) -> int:
    if not 0 <= revision <= MAX_NUMBER:
        raise DomainError("bad_request")
    return revision


def _check_encodable(graph: Graph) -> None:
    """The loader refuses lone UTF-16 surrogates ("\\ud800"); a graph built in code could
    still carry one, and no page, export or digest could encode it."""
    try:
        canonical_json(graph).encode("utf-8")
    except UnicodeEncodeError:
        raise GraphFormatError("graph_not_utf8") from None


def _base_currency(session: Session, org_id: int) -> str:
    currency = session.scalar(select(Organization.base_currency).where(Organization.id == org_id))
    if currency is None:  # pragma: no cover - the unit of work names an existing org
        raise NotFound("organization")
    return currency


def _validate_in(session: Session, org_id: int, graph: Graph) -> list[Violation]:
    """The pure rules, then the checks that need this organization's data."""
    violations = validate(graph, base_currency=_base_currency(session, org_id))
    members = {g.grantee.member for g in graph.grants if g.grantee.kind == GranteeKind.MEMBER}
    positions = {g.grantee.position for g in graph.grants if g.grantee.kind == GranteeKind.POSITION}
    members.discard(None)
    positions.discard(None)
    active_members = set(
        session.scalars(
            select(Membership.id).where(Membership.id.in_(members), Membership.active.is_(True))
        )
        if members
        else ()
    )
    active_positions = set(
        session.scalars(
            select(Position.id).where(Position.id.in_(positions), Position.active.is_(True))
        )
        if positions
        else ()
    )
    return violations + grantee_violations(
        graph, active_members=active_members, active_positions=active_positions
    )


def _draft_view(session: Session, org_id: int, row: FlowDraft) -> DraftView:
    graph = graph_json.from_json(row.graph)
    return DraftView(
        kind=row.kind,
        revision=row.revision,
        base_version=row.base_version,
        graph=graph,
        violations=_validate_in(session, org_id, graph),
        updated_at=row.updated_at,
        updated_by=member_names(session, [row.updated_by]).get(row.updated_by)
        if row.updated_by
        else None,
        updated_by_id=row.updated_by,
    )


def _gone(session: Session, kind: str) -> DomainError:
    """No draft to act on: published or discarded since the page was loaded (a second
    click, a colleague) — or, for a kind this organization does not have, not found."""
    if latest_version_in(session, kind) is None:
        return NotFound("flow")
    return Conflict("draft_gone")


def _stale(current: int) -> Conflict:
    return Conflict("stale_revision", current=current)


# --- reading ----------------------------------------------------------------------------


def list_flows(actor: Actor) -> list[FlowSummary]:
    """Every kind this organization has published or is drafting, by kind."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        latest = {
            kind: (version, published_at)
            for kind, version, published_at in s.execute(
                select(
                    FlowVersion.kind,
                    func.max(FlowVersion.version),
                    func.max(FlowVersion.published_at),
                ).group_by(FlowVersion.kind)
            )
        }
        drafts = {d.kind: d for d in s.scalars(select(FlowDraft))}
    # Labels come from the (cached) current version, else from the draft.
    labels = {
        kind: get_version(actor, kind, number).graph.labels for kind, (number, _) in latest.items()
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


def draft_graph(actor: Actor, kind: str) -> Graph:
    """The graph the editor works on — the saved draft, or the current version when
    there is none — without judging it: for a route preview, a diff, a page title.
    404 for a kind that has neither."""
    require_admin(actor)
    _check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        stored = s.scalar(select(FlowDraft.graph).where(FlowDraft.kind == kind))
        if stored is None:
            latest = latest_version_in(s, kind)
            if latest is None:
                raise NotFound("flow")
            stored = latest.graph
        return graph_json.from_json(stored)


def get_draft(actor: Actor, kind: str) -> DraftView:
    """The saved draft, or — when there is none — the current version as an unsaved
    draft (revision 0) so the editor always opens on something. 404 for a kind that
    has neither."""
    require_admin(actor)
    _check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        row = s.scalars(select(FlowDraft).where(FlowDraft.kind == kind)).first()
        if row is not None:
            return _draft_view(s, actor.org_id, row)
        latest = latest_version_in(s, kind)
        if latest is None:
            raise NotFound("flow")
        graph = graph_json.from_json(latest.graph)
        return DraftView(
            kind=kind,
            revision=0,
            base_version=latest.version,
            graph=graph,
            violations=_validate_in(s, actor.org_id, graph),
            updated_at=None,
            updated_by=None,
        )


# --- writing ----------------------------------------------------------------------------


def save_draft(actor: Actor, kind: str, graph: Graph, *, revision: int) -> DraftView:
    """Replace the kind's draft with ``graph``, edited from ``revision`` (0: there was no
    draft). An invalid graph is saved too, and its violations come back: only
    publishing refuses."""
    require_admin(actor)
    _check_kind(kind)
    _check_revision(revision)
    _check_encodable(graph)
    if graph.kind != kind:
        raise DomainError("graph_kind_mismatch", kind=graph.kind[:64], expected=kind)
    data = graph_json.to_json(graph.normalised())
    now = clock.now()
    with unit_of_work_for(actor) as uow:
        s = uow.session
        if revision == 0:
            existing = s.scalar(select(FlowDraft.revision).where(FlowDraft.kind == kind))
            if existing is not None:
                raise _stale(existing)
            latest = latest_version_in(s, kind)
            row = FlowDraft(
                kind=kind,
                revision=1,
                base_version=latest.version if latest else None,
                graph=data,
                updated_at=now,
                updated_by=actor.member_id,
            )
            s.add(row)
            try:
                s.flush()
            except IntegrityError:
                # Someone created the draft between our check and our insert.
                raise _stale(0) from None
        else:
            # Conditional on the revision the editor saw: a concurrent save makes it 0 rows.
            result = s.execute(
                update(FlowDraft)
                .where(FlowDraft.kind == kind, FlowDraft.revision == revision)
                .values(
                    revision=revision + 1,
                    graph=data,
                    updated_at=now,
                    updated_by=actor.member_id,
                )
                .execution_options(synchronize_session=False)
            )
            if result.rowcount != 1:
                current = s.scalar(select(FlowDraft.revision).where(FlowDraft.kind == kind))
                raise _stale(current or 0)
            row = s.scalars(select(FlowDraft).where(FlowDraft.kind == kind)).one()
            s.refresh(row)
        return _draft_view(s, actor.org_id, row)


def discard_draft(actor: Actor, kind: str, *, revision: int) -> None:
    require_admin(actor)
    _check_kind(kind)
    _check_revision(revision)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        result = s.execute(
            delete(FlowDraft)
            .where(FlowDraft.kind == kind, FlowDraft.revision == revision)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            current = s.scalar(select(FlowDraft.revision).where(FlowDraft.kind == kind))
            if current is None:
                raise _gone(s, kind)
            raise _stale(current)


def publish_draft(actor: Actor, kind: str, *, revision: int) -> VersionView:
    """Validate the draft saved at ``revision`` and append it as the next version.

    Refuses with ``flow_invalid`` (and every violation) when it has errors; the draft
    stays for the admin to fix. On success the draft is consumed."""
    require_admin(actor)
    _check_kind(kind)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        row = s.scalars(select(FlowDraft).where(FlowDraft.kind == kind).with_for_update()).first()
        if row is None:
            raise _gone(s, kind)
        if row.revision != revision:
            raise _stale(row.revision)
        graph = graph_json.from_json(row.graph)
        violations = _validate_in(s, actor.org_id, graph)
        if errors_in(violations):
            raise FlowInvalid(violations)
        version = _append_version(s, graph, published_by=actor.member_id)
        s.delete(row)
        view = version_view_in(s, version)
    version_cache.put((actor.org_id, kind, view.version), view)
    return view


def _append_version(session: Session, graph: Graph, *, published_by: int | None) -> FlowVersion:
    graph = graph.normalised()
    latest = latest_version_in(session, graph.kind)
    row = FlowVersion(
        kind=graph.kind,
        version=(latest.version if latest else 0) + 1,
        graph=graph_json.to_json(graph),
        digest=digest_of(graph),
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


def base_currency(actor: Actor) -> str:
    """The organization's base currency: grant floors are written in it."""
    with unit_of_work_for(actor) as uow:
        return _base_currency(uow.session, actor.org_id)


def draft_from_version(actor: Actor, kind: str, version: int, *, revision: int) -> DraftView:
    """Replace the draft (edited from ``revision``; 0 when there is none) with a copy of
    a published version: "start a draft from this version"."""
    require_admin(actor)
    return save_draft(actor, kind, get_version(actor, kind, version).graph, revision=revision)


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
    draft = draft_graph(actor, kind)
    try:
        current: Graph | None = current_version(actor, kind).graph
    except NotFound:
        current = None
    graphs_named = (draft,) if current is None else (current, draft)
    return DraftChanges(
        diff(current, draft), current, draft, describe_references(actor, *graphs_named)
    )


# --- import and export ------------------------------------------------------------------


def import_draft(
    actor: Actor, document: str | bytes, *, kind: str | None = None, revision: int = 0
) -> DraftView:
    """Load a graph document (as exported) into a draft: of ``kind`` over the draft at
    ``revision``, or — with no kind — of the kind the document names, which must have
    no draft yet. Malformed JSON or a wrong shape is refused naming the path; a
    well-formed but invalid graph is saved with its violations, like any draft."""
    require_admin(actor)
    graph = graph_json.loads(document)
    if kind is None:
        kind = graph.kind
        if not KEY_PATTERN.match(kind):
            raise DomainError("flow_kind_invalid", field="file", kind=kind[:64])
        with unit_of_work_for(actor) as uow:
            if uow.session.scalar(select(FlowDraft.id).where(FlowDraft.kind == kind)):
                raise DomainError("draft_exists", field="file", kind=kind)
    return save_draft(actor, kind, graph, revision=revision)


@dataclass(frozen=True)
class References:
    """Names for the members and seats a graph's grants point at, for display."""

    members: dict[int, str]
    positions: dict[int, str]


def describe_references(actor: Actor, *graphs_named: Graph) -> References:
    require_admin(actor)
    grants = [g for graph in graphs_named for g in graph.grants]
    member_ids = {g.grantee.member for g in grants if g.grantee.member is not None}
    position_ids = {g.grantee.position for g in grants if g.grantee.position is not None}
    with unit_of_work_for(actor) as uow:
        s = uow.session
        members = member_names(s, member_ids)
        positions = {
            p.id: f"{p.code} — {p.title}"
            for p in (
                s.scalars(select(Position).where(Position.id.in_(position_ids)))
                if position_ids
                else ()
            )
        }
    return References(members, positions)


@dataclass(frozen=True)
class Export:
    filename: str
    body: str


def export_flow(actor: Actor, kind: str, *, version: int | None = None) -> Export:
    """The JSON of a version (``version``), or of the draft (``version=None``; the
    current version when there is no draft)."""
    require_admin(actor)
    _check_kind(kind)
    if version is not None:
        graph = get_version(actor, kind, version).graph
        filename = f"{kind}-v{version}.json"
    else:
        draft = get_draft(actor, kind)
        graph = draft.graph
        filename = (
            f"{kind}-draft-r{draft.revision}.json"
            if draft.saved
            else f"{kind}-v{draft.base_version}.json"
        )
    return Export(filename, graph_json.dumps(graph.normalised()))


# --- seeding ----------------------------------------------------------------------------


def seed_flows(org_id: int) -> list[str]:
    """Publish version 1 of every seeded flow this organization has never published.
    Idempotent, and never touches a kind the organization already has a version of.
    Returns the kinds it published."""
    published = []
    with unit_of_work(org_id) as uow:
        s = uow.session
        currency = _base_currency(s, org_id)
        existing = set(s.scalars(select(FlowVersion.kind).distinct()))
        for graph in seeded.seeded_graphs(currency):
            if graph.kind in existing:
                continue
            errors = errors_in(validate(graph, base_currency=currency))
            if errors:  # pragma: no cover - the seeded-flow test keeps this from happening
                raise FlowInvalid(errors)
            _append_version(s, graph, published_by=None)
            published.append(graph.kind)
    return published


# --- readiness --------------------------------------------------------------------------


def flow_readiness(actor: Actor, *, as_of: date | None = None) -> list[ReadinessWarning]:
    """Grants of the current versions that can no longer resolve: a member who left, a
    retired or missing seat, a vacant seat that refuses to escalate, a role nobody
    holds; and seeded kinds that have no version at all."""
    require_admin(actor)
    day = as_of or clock.today()
    with unit_of_work_for(actor) as uow:
        s = uow.session
        numbers = dict(
            s.execute(
                select(FlowVersion.kind, func.max(FlowVersion.version)).group_by(FlowVersion.kind)
            ).all()
        )
        memberships = s.execute(select(Membership.id, Membership.active, Membership.roles)).all()
        active_members = {m.id for m in memberships if m.active}
        roles_held = {role for m in memberships if m.active for role in m.roles}
        positions = {p.id: p for p in s.scalars(select(Position))}
        held = {
            h.position_id
            for h in s.scalars(select(PositionHolding))
            if h.covers(day) and h.member_id in active_members
        }
        names = member_names(s, [m.id for m in memberships])
    warnings = [
        ReadinessWarning(kind, 0, -1, None, "readiness_flow_missing", {"kind": kind})
        for kind in seeded.SEEDED_KINDS
        if kind not in numbers
    ]
    for kind in sorted(numbers):
        view = get_version(actor, kind, numbers[kind])
        for i, grant in enumerate(view.graph.grants):
            grantee = grant.grantee
            found: tuple[str, dict[str, Any]] | None = None
            if grantee.kind == GranteeKind.MEMBER and grantee.member not in active_members:
                name = names.get(grantee.member) or f"#{grantee.member}"  # type: ignore[arg-type]
                found = ("readiness_member_inactive", {"name": name})
            elif grantee.kind == GranteeKind.POSITION:
                seat = positions.get(grantee.position)  # type: ignore[arg-type]
                label = f"{seat.code} — {seat.title}" if seat else f"#{grantee.position}"
                if seat is None or not seat.active:
                    found = ("readiness_position_retired", {"position": label})
                elif seat.id not in held and grant.on_vacancy == OnVacancy.REFUSE:
                    found = ("readiness_position_vacant", {"position": label})
            elif grantee.kind == GranteeKind.ROLE and grantee.role not in roles_held:
                found = ("readiness_role_empty", {"role": grantee.role})
            if found is not None:
                warnings.append(
                    ReadinessWarning(kind, view.version, i, grant.state, found[0], found[1])
                )
    return warnings
