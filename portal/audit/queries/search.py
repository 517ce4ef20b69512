"""The audit search (the audit home page): one page of the organization's documents for
the filter, its count, what the form's lists offer, and the latest verification of the
chains — read in one unit of work.

Admins and auditors only (the view says 404 to anyone else; this says it again). The SQL
is the documents feature's (``documents.queries.audit_search``); this module adds the
labels in the reader's language and the names, and decides what a page past the end is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy.orm import Session

from portal.accounts.queries import member_directory_in
from portal.audit.queries.verification import VerificationSummary, latest_in
from portal.core.uow import unit_of_work_for
from portal.documents.queries.audit_search import (
    AuditRow,
    AuditSearch,
    audit_page_in,
    audit_search,
    count_audit_in,
)
from portal.domain.actor import Actor, SystemActor, require_audit_reader
from portal.domain.audit_query import PER_PAGE, AuditQuery
from portal.domain.diagram import state_tone
from portal.domain.errors import NotFound
from portal.domain.graph import Graph
from portal.flows.queries import published_kinds_in, version_in

# Counting stops here: "1,000+" costs what 1,001 rows cost, however large the
# organization (10,000 cost a busy organization's kind-and-state search 45 ms). Past it
# the pages are counted only when someone asks for one beyond.
COUNT_CAP = 1_000


@dataclass(frozen=True)
class Choice:
    key: str
    label: str


@dataclass(frozen=True)
class MemberChoice:
    id: int
    name: str
    active: bool


@dataclass(frozen=True)
class SearchRow:
    reference: str
    kind: str
    kind_label: str
    title: str
    requester_name: str
    amount: Decimal
    currency: str
    state: str
    state_label: str
    # The state chip's tone (its role), as every list shows states.
    tone: str
    created_at: datetime
    # The last decision: when the document entered its state.
    decided_at: datetime
    discarded: bool


@dataclass(frozen=True)
class SearchPage:
    query: AuditQuery
    rows: list[SearchRow]
    # How many documents match; with ``total_capped``, at least this many.
    total: int
    total_capped: bool
    # How many pages the results fill (at least this many when the count is capped).
    pages: int
    has_next: bool
    # The page asked for lies beyond the last one (no rows: the page says so).
    past_end: bool
    kinds: list[Choice]
    states: list[Choice]
    members: list[MemberChoice]
    verification: VerificationSummary | None
    # The zone the filter's days are read in: the organization's.
    time_zone: str
    per_page: int = PER_PAGE


class Labeller:
    """Kind and state names in one language for rows of many pinned versions, each
    version read once (versions never change)."""

    def __init__(self, session: Session, org_id: int, locale: str) -> None:
        self.session, self.org_id, self.locale = session, org_id, locale
        self._graphs: dict[tuple[str, int], Graph | None] = {}

    def graph(self, kind: str, version: int) -> Graph | None:
        key = (kind, version)
        if key not in self._graphs:
            try:
                self._graphs[key] = version_in(self.session, self.org_id, kind, version).graph
            except NotFound:  # pragma: no cover - a document's version always exists
                self._graphs[key] = None
        return self._graphs[key]

    def kind(self, kind: str, version: int) -> str:
        graph = self.graph(kind, version)
        return (graph.labels.text(self.locale) if graph else "") or kind

    def state(self, kind: str, version: int, state: str) -> tuple[str, str]:
        """The state's name and its chip's tone."""
        graph = self.graph(kind, version)
        found = graph.state(state) if graph else None
        if found is None:
            return state, state_tone("")
        return found.labels.text(self.locale) or state, state_tone(found.role)


def search_clause_in(
    session: Session, actor: Actor | SystemActor, query: AuditQuery
) -> AuditSearch:
    """The search as SQL for the actor's organization (days in its zone)."""
    dialect = session.connection().dialect.name
    return audit_search(actor.org_id, query, actor.time_zone, dialect)


def member_names_in(session: Session) -> dict[int, str]:
    """Every member's name (those who left too: they requested and decided documents)."""
    return {m.id: m.name for m in member_directory_in(session, active_only=False)}


def _choices_in(session: Session, org_id: int, locale: str) -> tuple[list[Choice], list[Choice]]:
    """The kinds with a published flow, and the states of their current versions."""
    kinds: list[Choice] = []
    states: dict[str, str] = {}
    for kind, number in published_kinds_in(session):
        graph = version_in(session, org_id, kind, number).graph
        kinds.append(Choice(kind, graph.labels.text(locale) or kind))
        for s in graph.states:
            states.setdefault(s.key, s.labels.text(locale) or s.key)
    ordered = sorted(states.items(), key=lambda item: item[1].lower())
    return kinds, [Choice(key, label) for key, label in ordered]


def _rows(labels: Labeller, names: dict[int, str], found: list[AuditRow]) -> list[SearchRow]:
    rows = []
    for r in found:
        state_label, tone = labels.state(r.kind, r.version, r.state)
        rows.append(
            SearchRow(
                reference=r.reference,
                kind=r.kind,
                kind_label=labels.kind(r.kind, r.version),
                title=r.title,
                requester_name=names.get(r.requester_id, ""),
                amount=r.amount,
                currency=r.currency,
                state=r.state,
                state_label=state_label,
                tone=tone,
                created_at=r.created_at,
                decided_at=r.state_entered_at,
                discarded=r.discarded_at is not None,
            )
        )
    return rows


def search(actor: Actor | SystemActor, query: AuditQuery) -> SearchPage:
    """One page of the organization's documents matching ``query``, newest first unless
    it sorts otherwise; a page beyond the last has no rows and says so."""
    require_audit_reader(actor)
    per = PER_PAGE
    with unit_of_work_for(actor) as uow:
        s = uow.session
        sql = search_clause_in(s, actor, query)
        offset = (query.page - 1) * per
        # The page first: when it is the last one (a row short of a full page and the
        # next), it tells the count itself — a rare word's search then reads the
        # organization's documents once, not twice.
        found = audit_page_in(s, sql, limit=per + 1, offset=offset)
        if found and len(found) <= per:
            total, capped = offset + len(found), False
        elif not found and query.page == 1:
            total, capped = 0, False
        else:
            total = count_audit_in(s, sql, cap=COUNT_CAP)
            capped = total > COUNT_CAP
            if capped and offset >= COUNT_CAP:
                # Far down a huge result: count it all, once, to know where it ends.
                total, capped = count_audit_in(s, sql), False
            if capped:
                total = COUNT_CAP
        pages = max(1, -(-total // per))
        past_end = not capped and query.page > pages
        members = [
            MemberChoice(m.id, m.name, m.active) for m in member_directory_in(s, active_only=False)
        ]
        names = {m.id: m.name for m in members}
        labels = Labeller(s, actor.org_id, actor.locale)
        kinds, states = _choices_in(s, actor.org_id, actor.locale)
        verification = latest_in(s, actor.org_id)
        return SearchPage(
            query=query,
            rows=_rows(labels, names, found[:per]),
            total=total,
            total_capped=capped,
            pages=pages,
            has_next=len(found) > per,
            past_end=past_end,
            kinds=kinds,
            states=states,
            members=members,
            verification=verification,
            time_zone=actor.time_zone,
        )
