"""Judging a graph for this organization: the pure rules, then what only the database
knows (do the members and seats its grants name exist here, and are they active); and
the checks every service makes of a kind or a revision it was handed."""

from __future__ import annotations

from sqlalchemy.orm import Session

from portal.accounts.queries import (
    active_member_ids_in,
    base_currency_in,
    member_names,
    time_zone_in,
)
from portal.core.clock import clock
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import KEY_PATTERN, GranteeKind, Graph
from portal.domain.money import minor_digits
from portal.domain.validate import (
    Violation,
    errors_in,
    floor_precision,
    grantee_violations,
    validate,
)
from portal.domain.validate.exclusive_staffing import (
    mentioned,
    unstaffed_steps,
    unstaffed_violations,
)
from portal.flows.queries import MAX_NUMBER
from portal.orgchart.queries import active_position_ids_in, load_chart


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
    currency = base_currency_in(session, org_id)
    violations = validate(graph, base_currency=currency)
    # A floor more precise than the currency (1000.005 ringgit) routes on a value no
    # document can carry: refused like any other error, never rounded.
    violations += floor_precision(graph, minor_digits(currency))
    members = {g.grantee.member for g in graph.grants if g.grantee.kind == GranteeKind.MEMBER}
    positions = {g.grantee.position for g in graph.grants if g.grantee.kind == GranteeKind.POSITION}
    violations += grantee_violations(
        graph,
        active_members=active_member_ids_in(session, members),
        active_positions=active_position_ids_in(session, positions),
    )
    return violations + _exclusive_staffing_in(session, org_id, graph, violations)


def _exclusive_staffing_in(
    session: Session, org_id: int, graph: Graph, violations: list[Violation]
) -> list[Violation]:
    """Under exclusive approval, the steps the chart of the organization's today leaves
    with nobody for some requester — for a graph sound enough to route (no errors)."""
    if not graph.exclusive_approval or errors_in(violations):
        return []
    chart = load_chart(session, clock.today_in(time_zone_in(session, org_id)))
    found = unstaffed_steps(graph, chart)
    if not found:
        return []
    return unstaffed_violations(found, graph, member_names(session, mentioned(found)))
