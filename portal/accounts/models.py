"""Organizations, user accounts and memberships.

``organization`` and ``app_user`` are platform tables (a user may belong to several
organizations); ``membership`` is the first org-scoped table.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, TenantScoped


class Organization(CreatedAt, Base):
    __tablename__ = "organization"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(63), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    # ISO 4217 code; amount floors and reporting are in this currency.
    base_currency: Mapped[str] = mapped_column(String(3))
    default_locale: Mapped[str] = mapped_column(String(8))
    # Changes (to a value never used before) whenever a unit, position, holding or
    # membership of the organization changes: database triggers set it, so the chart
    # snapshot the transition engine resolves against can be cached by it safely.
    chart_version: Mapped[int] = mapped_column(server_default=text("0"))

    def __repr__(self) -> str:
        return f"<Organization {self.id} {self.slug!r}>"


class User(CreatedAt, Base):
    __tablename__ = "app_user"

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stored lower-cased; the unique index is what makes sign-in unambiguous.
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(255))
    # None = follow the organization's default / the browser.
    locale: Mapped[str | None] = mapped_column(String(8))
    active: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    # Bumped on sign-out (and password change) so every older session cookie dies.
    session_version: Mapped[int] = mapped_column(Integer, server_default=text("1"))

    def __repr__(self) -> str:
        return f"<User {self.id} {self.email!r}>"


class Membership(TenantScoped, CreatedAt, Base):
    __tablename__ = "membership"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "user_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("app_user.id", ondelete="CASCADE"), index=True)
    # Org roles beyond "member": a subset of domain.actor.Role.ALL.
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))

    def __repr__(self) -> str:
        return f"<Membership {self.id} org={self.org_id} user={self.user_id} roles={self.roles}>"
