"""What a cover notice is about, read when it is shown or sent: the cover itself (who
lent their authority to whom, for which kind and days, why, who set or revoked it) and,
for the delegator's summary, every decision taken under it.

The notifications feature stores only the cover's id; names, the kind's label and the
actions' labels (from each document's pinned flow) are read here, so a notice is in the
reader's language of the day and names people as they are called now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.core.db import storable_ids, table_of
from portal.delegations.queries import DELEGATION_TABLE as _DEL
from portal.documents.models import Decision, Document
from portal.domain.errors import NotFound
from portal.domain.graph import Graph
from portal.flows.queries import current_version_in, version_in

_DOC = table_of(Document)
_DECISION = table_of(Decision)


@dataclass(frozen=True)
class CoveredDecision:
    """One decision the delegate took on the delegator's behalf."""

    document_id: int
    reference: str
    title: str
    from_state: str
    transition: str
    decided_at: datetime
    # The document's pinned flow: the action's label in the reader's language.
    graph: Graph

    def action(self, locale: str) -> str:
        return self.graph.transition_label(self.from_state, self.transition, locale)


@dataclass(frozen=True)
class CoverFacts:
    id: int
    delegator_id: int
    delegate_id: int
    created_by: int
    revoked_by: int | None
    # None: every kind.
    kind: str | None
    valid_from: date
    valid_to: date
    reason: str
    revoked_at: datetime | None
    # Names as they are now, by member id (the delegator, delegate, setter, revoker).
    names: dict[int, str]
    # The kind's current flow (its name in the reader's language), when one is set.
    kind_graph: Graph | None = None
    # Read only when asked for (the delegator's summary): oldest first.
    decisions: tuple[CoveredDecision, ...] = field(default_factory=tuple)

    def name(self, member_id: int | None) -> str:
        return self.names.get(member_id, "—") if member_id is not None else "—"

    def kind_label(self, locale: str) -> str | None:
        if self.kind is None:
            return None
        return (self.kind_graph.labels.text(locale) if self.kind_graph else "") or self.kind


def cover_facts_in(
    session: Session,
    org_id: int,
    delegation_ids: Iterable[int | None],
    *,
    with_decisions: Iterable[int] = (),
) -> dict[int, CoverFacts]:
    """The covers ``delegation_ids`` name, by id (an id of another organization's, or of
    none, is left out), with the decisions taken under those in ``with_decisions``: two
    statements and a third for the decisions, plus a flow read per kind not cached."""
    ids = storable_ids(delegation_ids)
    if not ids:
        return {}
    rows = session.execute(select(_DEL).where(_DEL.c.org_id == org_id, _DEL.c.id.in_(ids))).all()
    if not rows:
        return {}
    names = member_names(
        session,
        (m for r in rows for m in (r.delegator_id, r.delegate_id, r.created_by, r.revoked_by)),
    )
    kinds: dict[str, Graph | None] = {}
    for r in rows:
        if r.kind is not None and r.kind not in kinds:
            kinds[r.kind] = _current_graph(session, org_id, r.kind)
    wanted = {r.id for r in rows} & set(storable_ids(with_decisions))
    decided = decisions_under(session, org_id, wanted)
    return {
        r.id: CoverFacts(
            r.id,
            r.delegator_id,
            r.delegate_id,
            r.created_by,
            r.revoked_by,
            r.kind,
            r.valid_from,
            r.valid_to,
            r.reason,
            r.revoked_at,
            names,
            kinds.get(r.kind) if r.kind is not None else None,
            tuple(decided.get(r.id, ())),
        )
        for r in rows
    }


def decisions_under(
    session: Session, org_id: int, delegation_ids: Iterable[int]
) -> dict[int, list[CoveredDecision]]:
    """The decisions taken under each cover, oldest first, by cover id."""
    ids = storable_ids(delegation_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(
            _DECISION.c.delegation_id,
            _DECISION.c.document_id,
            _DOC.c.reference,
            _DOC.c.title,
            _DOC.c.kind,
            _DOC.c.version,
            _DECISION.c.from_state,
            _DECISION.c.transition,
            _DECISION.c.decided_at,
        )
        .join(_DOC, (_DOC.c.org_id == _DECISION.c.org_id) & (_DOC.c.id == _DECISION.c.document_id))
        .where(_DECISION.c.org_id == org_id, _DECISION.c.delegation_id.in_(ids))
        .order_by(_DECISION.c.decided_at, _DECISION.c.id)
    ).all()
    graphs: dict[tuple[str, int], Graph] = {}
    found: dict[int, list[CoveredDecision]] = {}
    for r in rows:
        pinned = (r.kind, r.version)
        if pinned not in graphs:
            graphs[pinned] = version_in(session, org_id, *pinned).graph
        found.setdefault(r.delegation_id, []).append(
            CoveredDecision(
                r.document_id,
                r.reference,
                r.title,
                r.from_state,
                r.transition,
                r.decided_at,
                graphs[pinned],
            )
        )
    return found


def count_decided_under(
    session: Session, org_id: int, delegation_ids: Iterable[int]
) -> dict[int, int]:
    """How many decisions were taken under each cover (covers with none left out)."""
    ids = storable_ids(delegation_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(_DECISION.c.delegation_id, func.count(_DECISION.c.id))
        .where(_DECISION.c.org_id == org_id, _DECISION.c.delegation_id.in_(ids))
        .group_by(_DECISION.c.delegation_id)
    )
    return {delegation_id: int(n) for delegation_id, n in rows}


def _current_graph(session: Session, org_id: int, kind: str) -> Graph | None:
    try:
        return current_version_in(session, org_id, kind)[1].graph
    except NotFound:  # a kind with no flow (any more) names itself
        return None
