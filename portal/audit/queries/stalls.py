"""Where approvals stall, for one flow (one version, or all) and a period: the time
documents spend in each state, those waiting in each state now and how many are
overdue, approvals per approver, and the weekly trend — the figures ``domain.stalls``
defines, over the history ``documents.queries.stalls`` reads.

A filter the page cannot read (an unknown flow or version, a day that is not one, a
period that ends before it starts or is too long) leaves the figures out and says why,
with the flows to choose from still there: the page answers with the form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy.orm import Session

from portal.accounts.queries import member_names, org_time_zone_of
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.documents.queries import stalls as history
from portal.domain import exclusive
from portal.domain.actor import Actor, SystemActor, require_audit_reader
from portal.domain.errors import DomainError
from portal.domain.graph import Graph, State, StateRole
from portal.domain.labels import Labels
from portal.domain.stalls import (
    ALL_VERSIONS,
    ApproverCount,
    MoveGroup,
    Period,
    StateTime,
    WeekCount,
    approvals,
    in_order,
    parse_period,
    parse_version,
    utc_bounds,
    weeks_of,
)
from portal.flows.queries import published_kinds_in, version_in, versions_in

# The charts, as the page and the CSV links name them.
CHARTS = ("states", "waiting", "approvers", "weekly")
# A flow key is at most this long; a longer one is echoed cut.
_SHOWN = 40


@dataclass(frozen=True)
class StallQuery:
    """The filter as the query string holds it (already free of control characters)."""

    flow: str = ""
    version: str = ""
    start: str = ""  # ``from``
    end: str = ""  # ``to``


@dataclass(frozen=True)
class FlowChoice:
    kind: str
    labels: Labels
    # Published versions, newest first.
    versions: tuple[int, ...]


@dataclass(frozen=True)
class StallFilter:
    kind: str
    version: int | None
    period: Period

    def as_query(self) -> dict[str, str]:
        """The filter's one spelling: links, CSV links and the export's record."""
        return {
            "flow": self.kind,
            "version": str(self.version) if self.version is not None else ALL_VERSIONS,
            "from": self.period.start.isoformat(),
            "to": self.period.end.isoformat(),
        }


@dataclass(frozen=True)
class WaitingState:
    state: str
    waiting: int
    overdue: int
    # When the longest-waiting document entered the state.
    oldest_entered_at: datetime


@dataclass(frozen=True)
class StallReport:
    flows: tuple[FlowChoice, ...]
    # The filter the figures answer; None when the query was refused.
    filter: StallFilter | None
    refusal: DomainError | None
    now: datetime
    zone: str
    # The versions in scope, newest first: their labels name the states and actions.
    graphs: tuple[Graph, ...] = ()
    states: tuple[StateTime, ...] = ()
    waiting: tuple[WaitingState, ...] = ()
    approvers: tuple[ApproverCount, ...] = ()
    names: Mapping[int, str] = field(default_factory=dict)
    weeks: tuple[WeekCount, ...] = ()

    def state_label(self, key: str, locale: str) -> str:
        """The state's name in the newest version that has it; the key otherwise."""
        for graph in self.graphs:
            if graph.state(key) is not None:
                return graph.state_label(key, locale)
        return key

    def action_label(self, from_state: str, transition: str, locale: str) -> str:
        for graph in self.graphs:
            if graph.transition(from_state, transition) is not None:
                return graph.transition_label(from_state, transition, locale)
        return transition

    def flow_label(self, locale: str) -> str:
        return self.graphs[0].labels.text(locale) if self.graphs else ""

    def rows_in(self, chart: str) -> int:
        """How many rows the chart's table (and its CSV) holds."""
        return len(
            {
                "states": self.states,
                "waiting": self.waiting,
                "approvers": self.approvers,
                "weekly": self.weeks,
            }[chart]
        )


def stall_report(actor: Actor | SystemActor, query: StallQuery) -> StallReport:
    """The page's figures, or — for a filter it cannot read — the refusal and the flows
    to choose from."""
    require_audit_reader(actor)
    with unit_of_work_for(actor) as uow:
        return stall_report_in(uow.session, actor, query, refuse=False)


def stall_report_in(
    session: Session, actor: Actor | SystemActor, query: StallQuery, *, refuse: bool = True
) -> StallReport:
    """The figures inside the caller's unit of work. A filter that cannot be read is
    raised when ``refuse`` (an export), else answered in the report (the page)."""
    require_audit_reader(actor)
    zone = org_time_zone_of(session, actor)
    now = clock.now()
    flows = _flows_in(session, actor.org_id)
    try:
        chosen = _filter(query, flows, clock.today_in(zone))
    except DomainError as refused:
        if refuse:
            raise
        return StallReport(flows, None, refused, now, zone)
    versions = [chosen.version] if chosen.version is not None else _versions_of(flows, chosen)
    graphs = {v: version_in(session, actor.org_id, chosen.kind, v).graph for v in versions}
    scope = (actor.org_id, chosen.kind, chosen.version)
    start, end = utc_bounds(chosen.period, zone)
    order = _state_order(graphs)
    weeks = weeks_of(chosen.period, zone)
    moves = history.moves_in(
        session,
        *scope,
        weeks.starts,
        weeks.end,
        forward=_states_where(graphs, lambda graph, s: graph.moves_forward(s.key)),
        terminal=_states_where(graphs, lambda _graph, s: s.terminal),
    )
    approved = approvals(
        (
            MoveGroup(
                m.version,
                m.actor_id,
                m.from_state,
                m.transition,
                m.to_state,
                m.gate,
                m.via,
                m.moves,
            )
            for m in moves
            if m.actor_id is not None
        ),
        _rule(graphs, exclusive.counts),
    )
    counts: dict[int, tuple[int, int]] = {}
    for m in moves:
        if m.week is not None:
            submitted, finished = counts.get(m.week, (0, 0))
            counts[m.week] = (submitted + int(m.submitted or 0), finished + int(m.finished or 0))
    return StallReport(
        flows,
        chosen,
        None,
        now,
        zone,
        graphs=tuple(graphs[v] for v in sorted(graphs, reverse=True)),
        states=tuple(in_order(history.visit_times_in(session, *scope, start, end), order)),
        waiting=tuple(_waiting_in(session, actor.org_id, chosen, graphs, order, now)),
        approvers=tuple(approved),
        names=member_names(session, [a.member_id for a in approved]),
        weeks=tuple(weeks.counted(counts)),
    )


def _rule(
    graphs: Mapping[int, Graph], rule: Callable[[Graph, str, str], bool]
) -> Callable[[MoveGroup], bool]:
    """``rule(graph, gate, to_state)`` for counted moves, by their documents' flow."""
    return lambda g: g.version in graphs and rule(graphs[g.version], g.gate, g.to_state)


def _states_where(
    graphs: Mapping[int, Graph], holds: Callable[[Graph, State], bool]
) -> list[tuple[int, str]]:
    """The (version, state key) pairs of the versions in scope whose state ``holds``."""
    return [(v, s.key) for v, graph in graphs.items() for s in graph.states if holds(graph, s)]


def _flows_in(session: Session, org_id: int) -> tuple[FlowChoice, ...]:
    """The organization's kinds with a published version, by kind."""
    out = []
    for kind, newest in published_kinds_in(session):
        graph = version_in(session, org_id, kind, newest).graph
        numbers = tuple(v.version for v in versions_in(session, kind))
        out.append(FlowChoice(kind, graph.labels, numbers))
    return tuple(out)


def _filter(query: StallQuery, flows: tuple[FlowChoice, ...], today: date) -> StallFilter:
    """The query, checked: the flow among the organization's (the first when none is
    named), the version among the flow's, the period (``domain.stalls``)."""
    if not flows:
        raise DomainError("stalls_no_flows")
    kind = query.flow or flows[0].kind
    flow = next((f for f in flows if f.kind == kind), None)
    if flow is None:
        raise DomainError("stalls_unknown_flow", field="flow", flow=kind[:_SHOWN])
    version = parse_version(query.version)
    if version is not None and version not in flow.versions:
        raise DomainError("stalls_unknown_version", field="version", version=str(version))
    period = parse_period(query.start, query.end, today)
    return StallFilter(kind, version, period)


def _versions_of(flows: tuple[FlowChoice, ...], chosen: StallFilter) -> list[int]:
    return list(next(f for f in flows if f.kind == chosen.kind).versions)


def _state_order(graphs: Mapping[int, Graph]) -> list[str]:
    """The states in the newest version's drawing order, then those only older
    versions have."""
    order: list[str] = []
    for number in sorted(graphs, reverse=True):
        for state in graphs[number].states:
            if state.key not in order:
                order.append(state.key)
    return order


def _waiting_in(
    session: Session,
    org_id: int,
    chosen: StallFilter,
    graphs: Mapping[int, Graph],
    order: list[str],
    now: datetime,
) -> list[WaitingState]:
    """Documents in each state that waits for someone: not terminal, and not the draft
    (a draft waits for its author, not for an approval). States of several versions
    with one key are one state."""
    waits = {
        s.key
        for graph in graphs.values()
        for s in graph.states
        if not s.terminal and s.role != StateRole.DRAFT
    }
    rows = history.waiting_in(session, org_id, chosen.kind, chosen.version, sorted(waits), now)
    merged: dict[str, WaitingState] = {}
    for row in rows:
        state = graphs[row.version].state(row.state) if row.version in graphs else None
        if state is None or state.terminal or state.role == StateRole.DRAFT:
            continue
        seen = merged.get(row.state)
        merged[row.state] = WaitingState(
            row.state,
            row.waiting + (seen.waiting if seen else 0),
            int(row.overdue or 0) + (seen.overdue if seen else 0),
            min(row.oldest, seen.oldest_entered_at) if seen else row.oldest,
        )
    rank = {key: i for i, key in enumerate(order)}
    return sorted(merged.values(), key=lambda w: (rank.get(w.state, len(rank)), w.state))
