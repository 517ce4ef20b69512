"""Organizations, user accounts, their credentials, memberships and invitations.

``organization``, ``app_user``, ``credential`` and ``account_token`` are platform
tables (an account may belong to several organizations), each under row-level security
of its own (``core.rls``): a request sees its organization, its own account, and the
accounts of its organization's members. ``membership`` and ``invitation`` are org-scoped.
Nothing here is ever deleted by the application: organizations are archived, members
leave or are deactivated, invitations are revoked.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, Id, TenantScoped, tenant_fk


class Organization(CreatedAt, Base):
    __tablename__ = "organization"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(63), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    # ISO 4217 code; amount floors and reporting are in this currency.
    base_currency: Mapped[str] = mapped_column(String(3))
    default_locale: Mapped[str] = mapped_column(String(8))
    # IANA zone (``Asia/Kuala_Lumpur``): deadlines, "today" and every time shown to
    # its members, unless a member chooses their own.
    time_zone: Mapped[str] = mapped_column(String(64), server_default="UTC")
    # ISO 3166 country whose conventions dates and money follow (``MY``: en-MY, ms-MY,
    # zh-MY formats); None: the language's own.
    territory: Mapped[str | None] = mapped_column(String(2))
    # Changes (to a value never used before) whenever a unit, position, holding or
    # membership of the organization changes: database triggers set it, so the chart
    # snapshot the transition engine resolves against can be cached by it safely.
    chart_version: Mapped[int] = mapped_column(server_default=text("0"))
    # Admins must sign in with a second factor before they may use admin pages.
    require_admin_two_factor: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    # Set by the platform operator instead of deleting: members no longer reach it,
    # and its history stays whole.
    archived_at: Mapped[datetime | None]
    # How long before a task's deadline its holder is reminded (0: no such reminder).
    reminder_lead_minutes: Mapped[int] = mapped_column(Integer, server_default=text("240"))

    def __repr__(self) -> str:
        return f"<Organization {self.id} {self.slug!r}>"


class User(CreatedAt, Base):
    """An account: the person's own, whichever organizations they belong to."""

    __tablename__ = "app_user"

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stored lower-cased; the unique index is what makes sign-in unambiguous.
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    # None = follow the organization's default / the browser.
    locale: Mapped[str | None] = mapped_column(String(8))
    active: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    # Bumped on sign-out and password change so every older session cookie dies.
    session_version: Mapped[int] = mapped_column(Integer, server_default=text("1"))

    def __repr__(self) -> str:
        return f"<User {self.id} {self.email!r}>"


class Credential(Base):
    """How an account proves it is its owner. A table of its own so that reading a
    colleague's name never reads their password hash: only the account itself (and the
    platform) may see this row."""

    __tablename__ = "credential"

    user_id: Mapped[int] = mapped_column(
        Id, ForeignKey("app_user.id", ondelete="RESTRICT"), primary_key=True
    )
    password_hash: Mapped[str] = mapped_column(String(255))
    password_changed_at: Mapped[datetime]
    # RFC 6238 secret (base32) once two-factor sign-in is on; the pending one while
    # the person is scanning it and has not yet typed a code.
    totp_secret: Mapped[str | None] = mapped_column(String(64))
    totp_pending_secret: Mapped[str | None] = mapped_column(String(64))
    totp_enabled_at: Mapped[datetime | None]
    # The last time step a code was accepted for: a code is good once.
    totp_last_step: Mapped[int | None]
    # SHA-256 of each unused recovery code (high-entropy, so a plain digest suffices).
    recovery_codes: Mapped[list[str]] = mapped_column(JSON, default=list)

    def __repr__(self) -> str:
        return f"<Credential user={self.user_id}>"


class AccountToken(CreatedAt, Base):
    """A single-use, expiring proof sent by mail (a password reset). The link carries
    the selector signed with the secret key; the database never holds the link."""

    __tablename__ = "account_token"
    __table_args__ = (CheckConstraint("purpose IN ('password_reset')", name="purpose"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(
        Id, ForeignKey("app_user.id", ondelete="RESTRICT"), index=True
    )
    purpose: Mapped[str] = mapped_column(String(20))
    selector: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class Membership(TenantScoped, CreatedAt, Base):
    __tablename__ = "membership"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "user_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("app_user.id", ondelete="RESTRICT"), index=True)
    # Org roles beyond "member": a subset of domain.actor.Role.ALL.
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    # When the person left on their own; an admin cannot bring them back, only invite
    # them again.
    left_at: Mapped[datetime | None]
    # The member's own zone for times shown to them; None: the organization's.
    time_zone: Mapped[str | None] = mapped_column(String(64))

    def __repr__(self) -> str:
        return f"<Membership {self.id} org={self.org_id} user={self.user_id} roles={self.roles}>"


class Invitation(TenantScoped, CreatedAt, Base):
    """An admin's invitation to an address. The person accepts through a signed link;
    an account is made (or an existing one joins) only then, by its owner."""

    __tablename__ = "invitation"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("invited_by", "membership", ondelete="RESTRICT"),
        tenant_fk("revoked_by", "membership", ondelete="RESTRICT"),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        UniqueConstraint("selector"),
        # One open invitation per address and organization: inviting again renews it.
        Index(
            "ix_invitation_open_email",
            "org_id",
            "email",
            unique=True,
            postgresql_where=text("accepted_at IS NULL AND revoked_at IS NULL"),
            sqlite_where=text("accepted_at IS NULL AND revoked_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254))
    # How the admin named the person: a suggestion for a new account, never imposed on
    # an existing one.
    name: Mapped[str] = mapped_column(String(200))
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    # None when the platform invited (an organization's first admin).
    invited_by: Mapped[int | None]
    # Random; the link carries it signed. A resend draws a new one, so an older link
    # stops working.
    selector: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime]
    sent_at: Mapped[datetime]
    send_count: Mapped[int] = mapped_column(server_default=text("1"))
    accepted_at: Mapped[datetime | None]
    member_id: Mapped[int | None]
    revoked_at: Mapped[datetime | None]
    revoked_by: Mapped[int | None]

    def __repr__(self) -> str:
        return f"<Invitation {self.id} {self.email!r}>"
