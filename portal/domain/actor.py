"""Who is acting, in which organization. Services take it as their first argument."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from portal.domain.errors import DomainError, Forbidden, NotFound


class Role:
    ADMIN = "admin"
    AUDITOR = "auditor"

    ALL = (ADMIN, AUDITOR)


@dataclass(frozen=True)
class Actor:
    org_id: int
    org_slug: str
    user_id: int
    member_id: int
    roles: frozenset[str] = field(default_factory=frozenset)
    locale: str = "en"
    # The organization's IANA zone: the days it computes ("today", a seat's last day).
    time_zone: str = "UTC"
    # The country whose date and money conventions the organization reads (``MY``).
    territory: str | None = None
    # The member's own zone for what is shown to them; None: the organization's.
    own_time_zone: str | None = None
    # The organization's reminder before a deadline, in minutes (0: none).
    reminder_lead_minutes: int = 240

    @property
    def display_time_zone(self) -> str:
        """The zone times are shown in to this member."""
        return self.own_time_zone or self.time_zone

    @property
    def is_admin(self) -> bool:
        return Role.ADMIN in self.roles

    @property
    def is_auditor(self) -> bool:
        return Role.AUDITOR in self.roles


@dataclass(frozen=True)
class SystemActor:
    """The platform itself (CLI, seeding, jobs) acting inside one organization."""

    org_id: int
    org_slug: str = ""
    user_id: None = None
    member_id: None = None
    roles: frozenset[str] = frozenset({Role.ADMIN})
    locale: str = "en"
    time_zone: str = "UTC"
    territory: str | None = None
    own_time_zone: None = None
    reminder_lead_minutes: int = 240
    # The deadline sweep firing a state's automatic transition: authorised as the system
    # (``authority.Principal.system``). Every other platform act decides nothing.
    deadline_sweep: bool = False

    @property
    def display_time_zone(self) -> str:
        return self.time_zone

    @property
    def is_admin(self) -> bool:
        return True

    @property
    def is_auditor(self) -> bool:
        return True


def check_roles(roles: Iterable[str]) -> list[str]:
    """The roles, sorted and each once; ``unknown_role`` for one that is not a role."""
    cleaned = sorted(set(roles))
    for role in cleaned:
        if role not in Role.ALL:
            raise DomainError("unknown_role", field="roles", role=role)
    return cleaned


def require_admin(actor: Actor | SystemActor) -> None:
    """Org-admin operations refuse everyone else, whatever page they came from."""
    if not actor.is_admin:
        raise Forbidden("admin_required")


def may_audit(actor: Actor | SystemActor) -> bool:
    """Admins and auditors read every document of their organization, read-only."""
    return actor.is_admin or actor.is_auditor


def require_audit_reader(actor: Actor | SystemActor) -> None:
    """The audit pages and their exports are there only for admins and auditors; to
    anyone else they do not exist (a 404, not a 403: nothing about them leaks)."""
    if not may_audit(actor):
        raise NotFound("page")
