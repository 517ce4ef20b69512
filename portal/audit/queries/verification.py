"""The organization's passes over its hash chains: the latest, as the audit home page
shows it (with who asked for it), and whether tonight's nightly pass already ran."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import member_names
from portal.audit.models import ChainVerification


@dataclass(frozen=True)
class VerificationSummary:
    trigger: str
    finished_at: datetime
    chains: int
    decisions: int
    # Each broken chain: {"reference", "document_id", "seq"} (the first bad decision).
    failures: list[dict[str, Any]]
    started_at: datetime | None = None
    # Who asked for it (a pass asked for from the audit home page), and their name.
    member_id: int | None = None
    member_name: str | None = None

    @property
    def ok(self) -> bool:
        return not self.failures


def summary_of(row: ChainVerification, member_name: str | None = None) -> VerificationSummary:
    return VerificationSummary(
        trigger=row.trigger,
        finished_at=row.finished_at,
        chains=row.chains,
        decisions=row.decisions,
        failures=list(row.failures),
        started_at=row.started_at,
        member_id=row.member_id,
        member_name=member_name,
    )


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
    name = member_names(session, [row.member_id]).get(row.member_id) if row.member_id else None
    return summary_of(row, name)


def ran_since_in(session: Session, org_id: int, trigger: str, since: datetime) -> bool:
    """Whether a pass of this kind started at or after ``since`` (the nightly slot's
    instant): a second delivery of the same night's job finds it and does nothing."""
    return (
        session.scalar(
            select(ChainVerification.id)
            .where(
                ChainVerification.org_id == org_id,
                ChainVerification.trigger == trigger,
                ChainVerification.started_at >= since,
            )
            .limit(1)
        )
        is not None
    )
