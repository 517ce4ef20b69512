"""Flow drafts (one mutable graph per kind) and published versions (immutable)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, TenantScoped, tenant_fk


class FlowDraft(TenantScoped, Base):
    """What an admin is editing for one kind. Saving an invalid graph is allowed (the
    editor shows its violations); only publishing refuses."""

    __tablename__ = "flow_draft"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "kind"),
        tenant_fk("updated_by", "membership"),
        CheckConstraint("revision >= 1", name="revision_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(63))
    # Bumped on every save; a save names the revision it was edited from (409 if stale).
    revision: Mapped[int]
    # The version the draft was started from; None for a kind never published.
    base_version: Mapped[int | None]
    # The graph as JSON (``domain.graph_json.to_json``), normalised.
    graph: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime]
    updated_by: Mapped[int | None]

    def __repr__(self) -> str:
        return f"<FlowDraft {self.kind!r} r{self.revision}>"


class FlowVersion(TenantScoped, Base):
    """A published graph. Append-only: no UPDATE or DELETE grant for the app role, and
    a trigger refuses both for everyone. Documents are pinned to one of these."""

    __tablename__ = "flow_version"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "kind", "version"),
        tenant_fk("published_by", "membership"),
        CheckConstraint("version >= 1", name="version_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(63))
    version: Mapped[int]
    graph: Mapped[dict[str, Any]] = mapped_column(JSON)
    # SHA-256 of the canonical JSON: lets anyone check a version was not altered.
    digest: Mapped[str] = mapped_column(String(64))
    published_at: Mapped[datetime]
    # None when the platform published it (the seeded v1).
    published_by: Mapped[int | None]

    def __repr__(self) -> str:
        return f"<FlowVersion {self.kind!r} v{self.version}>"
