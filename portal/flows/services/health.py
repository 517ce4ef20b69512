"""Which flows need an admin's attention: the draft (or, without one, the current
version) breaks a rule of the validator or draws a warning, or a grant of the current
version can no longer find anybody on today's chart (``readiness``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session

from portal.domain.labels import Labels
from portal.flows.services.drafts import draft_in
from portal.flows.services.listing import flows_in
from portal.flows.services.readiness import readiness_in


@dataclass(frozen=True)
class FlowProblems:
    kind: str
    labels: Labels | None
    # The validator's verdict on the draft (or the current version when none is saved).
    errors: int
    warnings: int
    # Grants of the current version that resolve to nobody today, or the kind is missing.
    unresolved: int

    @property
    def count(self) -> int:
        return self.errors + self.warnings + self.unresolved


def flow_problems_in(session: Session, org_id: int, day: date) -> list[FlowProblems]:
    """Every flow with at least one problem, by kind."""
    unresolved: dict[str, int] = {}
    for warning in readiness_in(session, org_id, day):
        unresolved[warning.kind] = unresolved.get(warning.kind, 0) + 1
    problems: dict[str, FlowProblems] = {}
    for summary in flows_in(session, org_id):
        verdict = draft_in(session, org_id, summary.kind).violations
        errors = sum(1 for v in verdict if v.is_error)
        found = FlowProblems(
            summary.kind,
            summary.labels,
            errors,
            len(verdict) - errors,
            unresolved.pop(summary.kind, 0),
        )
        if found.count:
            problems[summary.kind] = found
    for kind, count in unresolved.items():  # a seeded kind with no flow at all
        problems[kind] = FlowProblems(kind, None, 0, 0, count)
    return [problems[kind] for kind in sorted(problems)]
