"""Judging a graph for this organization: the pure rules, then what only the database
knows (do the members and seats its grants name exist here, and are they active); and
the checks every service makes of a kind or a revision it was handed."""

from __future__ import annotations

from sqlalchemy.orm import Session

from portal.accounts.queries import active_member_ids_in, base_currency_in
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import KEY_PATTERN, GranteeKind, Graph
from portal.domain.validate import Violation, errors_in, grantee_violations, validate
from portal.flows.queries import MAX_NUMBER
from portal.orgchart.queries import active_position_ids_in


class FlowInvalid(DomainError):
    """Publishing refused: the graph has errors. Carries every violation."""

    def __init__(self, violations: list[Violation]) -> None:
        super().__init__("flow_invalid", num=len(errors_in(violations)))
        self.violations = violations


def check_kind(kind: str) -> str:
    """``kind`` as asked, when it could name a flow at all; otherwise not found."""
    if not KEY_PATTERN.fullmatch(kind):
        raise NotFound("flow")
    return kind


def check_revision(revision: int) -> int:
    if not 0 <= revision <= MAX_NUMBER:
        raise DomainError("bad_request")
    return revision


def validate_in(session: Session, org_id: int, graph: Graph) -> list[Violation]:
    """The pure rules, then the checks that need this organization's data."""
    violations = validate(graph, base_currency=base_currency_in(session, org_id))
    members = {g.grantee.member for g in graph.grants if g.grantee.kind == GranteeKind.MEMBER}
    positions = {g.grantee.position for g in graph.grants if g.grantee.kind == GranteeKind.POSITION}
    return violations + grantee_violations(
        graph,
        active_members=active_member_ids_in(session, members),
        active_positions=active_position_ids_in(session, positions),
    )
