"""Why a document's open step reached whom it reached: the tasks opened ``via``
escalation, each with the gap the resolution went past (a vacant seat), so the
document page can say "reached Aisha Rahman because the seat of Head of Sales is
vacant".

The task records that it came by escalation; the reason is the resolution of the step
on the day the document entered it, recomputed from the dated chart (the same pure
rules that opened the task), and read only when such a task is open.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from portal.accounts.queries import member_names, time_zone_in
from portal.documents.access import DocumentRecord
from portal.domain.engine import escalations_of
from portal.domain.graph import Graph
from portal.domain.resolution import Gap
from portal.domain.routing import route_step
from portal.domain.time_zones import local_day
from portal.orgchart.queries import gap_names_in, load_chart


@dataclass(frozen=True)
class Escalated:
    """A member an open step reached only past a gap, and that gap in words' terms:
    its reason and the names its sentence needs (``gap_names``)."""

    member_id: int
    name: str
    reason: str
    names: dict[str, object]


def escalations_in(
    session: Session, doc: DocumentRecord, graph: Graph, escalated: Iterable[int]
) -> list[Escalated]:
    """Why the holders of the document's open escalated tasks (``escalated``, read with
    its open tasks) hold them: nothing is read when there are none."""
    escalated = set(escalated)
    if not escalated:
        return []
    day = local_day(doc.state_entered_at, time_zone_in(session, doc.org_id))
    chart = load_chart(session, day)
    gaps: dict[int, Gap] = {}
    gate_states = {graph.gate_state(t) for t in graph.transitions_from(doc.state)}
    for gate_state in sorted(s for s in gate_states if s is not None):
        step = route_step(graph, gate_state, doc.requester_id, doc.amount, chart)
        if step.band is not None:
            for member, gap in escalations_of(step.band.grants, step.resolutions).items():
                gaps.setdefault(member, gap)
    names = member_names(session, escalated)
    found = []
    for member in sorted(escalated, key=lambda m: names.get(m, "")):
        past = gaps.get(member)
        if past is None:  # the chart has been rewritten since: say only that it escalated
            found.append(Escalated(member, names.get(member, f"#{member}"), "", {}))
            continue
        words = gap_names_in(session, chart, past.to_json())
        found.append(Escalated(member, names.get(member, f"#{member}"), past.reason, words))
    return found
