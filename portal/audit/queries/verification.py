"""The organization's latest pass over its hash chains, as the audit home page shows it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.audit.models import ChainVerification


@dataclass(frozen=True)
class VerificationSummary:
    trigger: str
    finished_at: datetime
    chains: int
    decisions: int
    # Each broken chain: {"reference", "document_id", "seq"} (the first bad decision).
    failures: list[dict[str, Any]]

    @property
    def ok(self) -> bool:
        return not self.failures


def latest_in(session: Session, org_id: int) -> VerificationSummary | None:
    """The most recent pass over the organization's chains, or None before the first."""
    row = session.scalars(
        select(ChainVerification)
        .where(ChainVerification.org_id == org_id)
        .order_by(ChainVerification.finished_at.desc(), ChainVerification.id.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    return VerificationSummary(
        trigger=row.trigger,
        finished_at=row.finished_at,
        chains=row.chains,
        decisions=row.decisions,
        failures=list(row.failures),
    )
