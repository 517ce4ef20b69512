"""Names for the members and seats a graph's grants point at, for display (the flow
page, the publish summary, the route preview)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.domain.graph import Graph
from portal.orgchart.queries import seat_labels_in


@dataclass(frozen=True)
class References:
    """Names for the members and seats a graph's grants point at, for display."""

    members: dict[int, str]
    positions: dict[int, str]


def references_in(session: Session, *graphs_named: Graph) -> References:
    grants = [g for graph in graphs_named for g in graph.grants]
    return References(
        member_names(session, {g.grantee.member for g in grants}),
        seat_labels_in(session, {g.grantee.position for g in grants}),
    )
