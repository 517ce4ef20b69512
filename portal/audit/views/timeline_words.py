"""The audit timeline in words, for its page and its print view: each decision with who
took it, on whose authority and how (grant, cover, escalation, …), the approver set and
the resolution as recorded then, its flow version, request id and hash; the time in each
state; the path beside the diagram. No routes.

The document page's own wording (what an edit changed, what a deadline did, the cover's
days) is reused from ``documents.views.timeline``, so both pages say a thing one way."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from flask import url_for
from flask_babel import gettext as _
from werkzeug.routing import BuildError

from portal.audit.queries.timeline import DocumentCheck, DocumentTimeline
from portal.documents.queries.detail import HistoryEntry
from portal.documents.views.timeline import cover_days, timeline_rows
from portal.domain.actor import Actor
from portal.domain.authority import Via
from portal.domain.diagram import HALO, draw, state_tone
from portal.domain.graph import Graph
from portal.domain.handover import HANDOVER_GATE
from portal.flows.wording.grants import grantee_words
from portal.web.i18n import format_elapsed, format_money
from portal.web.messages import gap_message


@dataclass(frozen=True)
class DecisionLine:
    """One decision as the audit timeline shows it."""

    entry: HistoryEntry
    action: str  # the transition's label
    from_label: str
    to_label: str
    # "Nurul Huda on behalf of Zainal Abidin (cover 8–19 Dec: leave)", or the system.
    actor: str
    # How the authority came: by grant, under a cover, by escalation, …
    via: str
    authority: str | None
    approvers: list[str]
    resolution: list[str]
    # The resolution exactly as recorded, for whoever wants to read the record.
    resolution_json: str
    flow_version: str
    request_id: str | None
    winning_floor: str | None
    prev_hash: str
    hash: str


def _ids(values: object) -> list[int]:
    return [v for v in values if isinstance(v, int)] if isinstance(values, list) else []


class _Names:
    """The names a grant's words need (``flows.wording.grants.Names``)."""

    def __init__(self, members: dict[int, str], positions: dict[int, str]) -> None:
        self.members = members
        self.positions = positions


def via_words(entry: HistoryEntry) -> str:
    if entry.gate == HANDOVER_GATE:
        return _("by handover")
    return {
        Via.REQUESTER: _("as the requester"),
        Via.GRANT: _("by grant"),
        Via.DELEGATION: _("under a cover (delegation)"),
        Via.ESCALATION: _("by escalation"),
        Via.REASSIGNMENT: _("by reassignment"),
        Via.SYSTEM: _("by the system"),
    }.get(entry.via, entry.via)


def resolution_words(
    recorded: object,
    graph: Graph,
    members: dict[int, str],
    seats: dict[int, str],
    currency: str,
) -> list[str]:
    """Each resolved grant of the step as it stood then: whom it pointed at, from which
    floor, whether it escalated or found nobody (and why). A handover's or a deadline's
    record is said elsewhere on the page; here it is shown as recorded."""
    names = _Names(members, seats)
    lines = []
    for item in recorded if isinstance(recorded, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("grant"), int):
            continue
        index = item["grant"]
        grant = graph.grants[index] if 0 <= index < len(graph.grants) else None
        who = grantee_words(grant.grantee, names) if grant else str(item.get("grantee", ""))
        found = [members.get(m, f"#{m}") for m in _ids(item.get("members"))]
        parts = [_("%(grantee)s: %(names)s", grantee=who, names=", ".join(found) or _("nobody"))]
        if isinstance(item.get("position_id"), int):
            parts.append(seats.get(item["position_id"], f"#{item['position_id']}"))
        floor = _amount(item.get("floor"))
        if floor:
            money = grant.currency if grant and grant.currency else currency
            parts.append(_("band from %(amount)s", amount=format_money(floor, money)))
        if item.get("escalated"):
            parts.append(_("escalated"))
        gap = item.get("gap")
        if isinstance(gap, dict) and isinstance(gap.get("reason"), str):
            parts.append(gap_message(gap["reason"], {}))
        lines.append(" · ".join(parts))
    return lines


def _amount(text: object) -> Decimal | None:
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        return None
    return value if value.is_finite() and value else None


def decision_lines(timeline: DocumentTimeline, locale: str) -> dict[int, DecisionLine]:
    trail = timeline.trail
    graph, doc = trail.document.graph, trail.record
    days = cover_days(trail.history)
    stored = {d["seq"]: d for d in trail.decisions}
    out: dict[int, DecisionLine] = {}
    for h in trail.history:
        d = stored[h.seq]
        who = h.actor_name or _("the system")
        authority = None
        if h.authority_name and h.cover:
            authority = _(
                "on behalf of %(name)s (cover %(days)s: %(reason)s)",
                name=h.authority_name,
                days=days[h.seq],
                reason=h.cover.reason,
            )
        elif h.authority_name:
            authority = _("on behalf of %(name)s", name=h.authority_name)
        version = (
            _("version %(version)s", version=doc.version)
            if d["flow_version_id"] == doc.flow_version_id
            else _("flow version #%(id)s", id=d["flow_version_id"])
        )
        floor = d["winning_floor"]
        out[h.seq] = DecisionLine(
            entry=h,
            action=graph.transition_label(h.from_state, h.transition, locale),
            from_label=graph.state_label(h.from_state, locale),
            to_label=graph.state_label(h.to_state, locale),
            actor=who,
            via=via_words(h),
            authority=authority,
            approvers=h.eligible_names,
            resolution=resolution_words(
                d["resolution"], graph, trail.members, trail.seats, h.currency
            ),
            resolution_json=json.dumps(d["resolution"], indent=1, ensure_ascii=False),
            flow_version=version,
            request_id=d["request_id"],
            winning_floor=format_money(floor, h.currency) if floor is not None else None,
            prev_hash=d["prev_hash"],
            hash=d["hash"],
        )
    return out


@dataclass(frozen=True)
class PathStep:
    number: int
    seq: int
    action: str
    from_label: str
    to_label: str
    at: datetime


@dataclass(frozen=True)
class StateTime:
    label: str
    tone: str
    visits: int
    total: str
    current: bool


@dataclass(frozen=True)
class VisitTime:
    label: str
    entered_at: datetime
    left_at: datetime | None
    duration: str


def timeline_page(
    timeline: DocumentTimeline, actor: Actor, check: DocumentCheck | None = None
) -> dict[str, Any]:
    """Everything the timeline's templates (page and print) need."""
    trail, locale = timeline.trail, actor.locale
    document = trail.document
    graph = document.graph
    state = graph.state(document.state)
    decided = {d["seq"]: d for d in trail.decisions}

    def label(key: str) -> str:
        return graph.state_label(key, locale)

    def tone(key: str) -> str:
        found = graph.state(key)
        return state_tone(found.role if found else "")

    return {
        "document": document,
        "record": trail.record,
        "graph": graph,
        "state": state,
        "tone": tone(document.state),
        "timeline": timeline_rows(trail.timeline, graph, locale),
        "decisions": decision_lines(timeline, locale),
        "chain": trail.chain,
        "result": check,
        "read_at": timeline.read_at,
        "diagram": draw(
            graph, document.state, locale, path=[(m.from_state, m.to_state) for m in timeline.path]
        ),
        "diagram_halo": HALO,
        "path_steps": [
            PathStep(
                n,
                m.seq,
                graph.transition_label(m.from_state, decided[m.seq]["transition"], locale),
                label(m.from_state),
                label(m.to_state),
                m.at,
            )
            for n, m in enumerate(timeline.path, start=1)
        ],
        "start_label": label(timeline.path[0].from_state if timeline.path else document.state),
        "state_times": [
            StateTime(label(t.state), tone(t.state), t.visits, format_elapsed(t.total), t.current)
            for t in timeline.time.totals
        ],
        "visits": [
            VisitTime(label(v.state), v.entered_at, v.left_at, format_elapsed(v.duration))
            for v in timeline.time.visits
        ],
        "elapsed": format_elapsed(timeline.time.elapsed),
        # In a terminal state: its life ended with the move into it.
        "finished": bool(timeline.time.visits) and not any(v.open for v in timeline.time.visits),
        "audit_home": audit_home(document.reference),
        # The flows' pages are an admin's: an auditor reads the version drawn here.
        "flow_link": url_for("flows.flow", kind=document.kind) if actor.is_admin else None,
    }


def audit_home(reference: str) -> str:
    """The audit's home page (the search), or its path should it be missing."""
    try:
        return url_for("audit.search")
    except BuildError:
        return url_for("audit.document", reference=reference).rsplit("/documents/", 1)[0]
