"""An organization's settings (its name, default language, time zone and territory),
kept by its admins; and a member's own time zone in it, kept by the member."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, Organization
from portal.core.territories import known_territories
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_admin
from portal.domain.durations import duration_minutes
from portal.domain.errors import DomainError, NotFound
from portal.domain.locales import check_locale
from portal.domain.naming import normalise_name
from portal.domain.text_input import clean_text
from portal.domain.time_zones import check_territory, check_time_zone


@dataclass(frozen=True)
class OrganizationSettings:
    name: str
    default_locale: str
    time_zone: str
    territory: str | None
    base_currency: str
    # How long before a deadline its holder is reminded; 0: no reminder before it.
    reminder_lead_minutes: int = 240


@dataclass(frozen=True)
class MySettings:
    """A member's own settings in one organization."""

    org_name: str
    # The organization's zone, and the member's own (None: they use the organization's).
    org_time_zone: str
    own_time_zone: str | None


def _settings_in(actor: Actor, session: Session) -> OrganizationSettings:
    org = session.scalar(select(Organization).where(Organization.id == actor.org_id))
    if org is None:  # pragma: no cover - the unit of work names an existing org
        raise NotFound("organization")
    return OrganizationSettings(
        org.name,
        org.default_locale,
        org.time_zone,
        org.territory,
        org.base_currency,
        org.reminder_lead_minutes,
    )


# A reminder further ahead than this is no reminder of a deadline.
MAX_REMINDER_LEAD_DAYS = 30
_HOURS_AND_MINUTES = re.compile(r"([0-9]{1,3}):([0-5][0-9])")


def reminder_lead_minutes(text: str) -> int:
    """``"4h"`` -> 240, ``"1:30"`` -> 90, ``"0"`` or ``""`` -> 0 (no reminder before the
    deadline); at most 30 days. Only ASCII digits; anything else is refused naming the
    field."""
    text = text.strip()
    refused = DomainError(
        "invalid_reminder_lead", field="reminder_lead", days=MAX_REMINDER_LEAD_DAYS
    )
    if len(text) > 12:
        raise refused
    if text in ("", "0"):
        return 0
    clock_like = _HOURS_AND_MINUTES.fullmatch(text)
    if clock_like:
        minutes: int | None = int(clock_like.group(1)) * 60 + int(clock_like.group(2))
    else:
        minutes = duration_minutes(text)
    if minutes is None or not 0 < minutes <= MAX_REMINDER_LEAD_DAYS * 24 * 60:
        raise refused
    return minutes


def reminder_lead_text(minutes: int) -> str:
    """How the settings page writes a lead back: "4h", "1d", "90m"; "0" for none."""
    if minutes == 0:
        return "0"
    for unit, size in (("d", 24 * 60), ("h", 60)):
        if minutes % size == 0:
            return f"{minutes // size}{unit}"
    return f"{minutes}m"


def get_organization_settings(actor: Actor) -> OrganizationSettings:
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return _settings_in(actor, uow.session)


def update_organization_settings(
    actor: Actor,
    *,
    name: str,
    default_locale: str,
    time_zone: str,
    territory: str | None,
    reminder_lead: str | None = None,
) -> OrganizationSettings:
    """Every field checked before anything is written: a refusal changes nothing.
    ``reminder_lead`` as a person writes it ("4h", "1:30", "0"); None keeps it."""
    require_admin(actor)
    name = normalise_name(clean_text(name, field="name", limit=200))
    check_locale(default_locale, field="default_locale")
    check_time_zone(time_zone)
    territory = check_territory(territory, known_territories())
    changes: dict[str, object] = {
        "name": name,
        "default_locale": default_locale,
        "time_zone": time_zone,
        "territory": territory,
    }
    if reminder_lead is not None:
        lead = clean_text(reminder_lead, field="reminder_lead", limit=100)
        changes["reminder_lead_minutes"] = reminder_lead_minutes(lead)
    with unit_of_work_for(actor) as uow:
        uow.session.execute(
            update(Organization).where(Organization.id == actor.org_id).values(**changes)
        )
        return _settings_in(actor, uow.session)


def _mine_in(actor: Actor, session: Session) -> MySettings:
    row = session.execute(
        select(Organization.name, Organization.time_zone, Membership.time_zone)
        .join(Membership, Membership.org_id == Organization.id)
        .where(Organization.id == actor.org_id, Membership.id == actor.member_id)
    ).one()
    return MySettings(*row)


def get_my_settings(actor: Actor) -> MySettings:
    with unit_of_work_for(actor) as uow:
        return _mine_in(actor, uow.session)


def set_my_time_zone(actor: Actor, time_zone: str | None) -> MySettings:
    """The zone times are shown to the member in; None (or "") follows the organization's."""
    zone = check_time_zone(time_zone) if time_zone else None
    with unit_of_work_for(actor) as uow:
        uow.session.execute(
            update(Membership).where(Membership.id == actor.member_id).values(time_zone=zone)
        )
        return _mine_in(actor, uow.session)
