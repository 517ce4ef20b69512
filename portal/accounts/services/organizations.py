"""Organizations: created and archived by the platform operator (never deleted); the
settings their admins keep (name, language, time zone, territory, a second factor for
admins, see ``settings``)."""

from __future__ import annotations

from babel.numbers import list_currencies
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from portal.accounts.models import Credential, Organization
from portal.core.clock import clock
from portal.core.db import rows_changed
from portal.core.territories import known_territories
from portal.core.uow import operator_work, unit_of_work_for
from portal.domain.actor import Actor, require_admin
from portal.domain.errors import DomainError, NotFound
from portal.domain.locales import check_locale
from portal.domain.naming import normalise_name, normalise_slug
from portal.domain.time_zones import DEFAULT_TIME_ZONE, check_territory, check_time_zone


def create_organization(
    slug: str,
    name: str,
    *,
    base_currency: str = "USD",
    default_locale: str = "en",
    time_zone: str = DEFAULT_TIME_ZONE,
    territory: str | None = None,
) -> Organization:
    slug = normalise_slug(slug)
    name = normalise_name(name)
    currency = base_currency.strip().upper()
    if currency not in list_currencies():
        raise DomainError("invalid_currency", field="base_currency", currency=base_currency)
    check_locale(default_locale, field="default_locale")
    check_time_zone(time_zone)
    territory = check_territory(territory, known_territories())
    try:
        with operator_work() as uow:
            if uow.session.scalar(select(Organization.id).where(Organization.slug == slug)):
                raise DomainError("duplicate_slug", field="slug", slug=slug)
            org = Organization(
                slug=slug,
                name=name,
                base_currency=currency,
                default_locale=default_locale,
                time_zone=time_zone,
                territory=territory,
                created_at=clock.now(),
            )
            uow.session.add(org)
    except IntegrityError as exc:  # created by someone else a moment ago
        raise DomainError("duplicate_slug", field="slug", slug=slug) from exc
    return org


def _set_archived(slug: str, archived: bool) -> None:
    with operator_work() as uow:
        changed = uow.session.execute(
            update(Organization)
            .where(Organization.slug == normalise_slug(slug))
            .values(archived_at=clock.now() if archived else None)
        )
        if rows_changed(changed) == 0:
            raise NotFound("organization")


def archive_organization(slug: str) -> None:
    """Close an organization: its members no longer reach it, nothing of it is deleted."""
    _set_archived(slug, True)


def restore_organization(slug: str) -> None:
    _set_archived(slug, False)


def set_admin_two_factor(actor: Actor, *, required: bool) -> None:
    """Whether admins must use two-factor sign-in to reach admin pages. An admin turns
    it on only once their own account has it, so nobody locks themselves out."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        if required:
            own = uow.session.scalar(
                select(Credential.totp_enabled_at).where(Credential.user_id == actor.user_id)
            )
            if own is None:
                raise DomainError("two_factor_needed_first", field="require_admin_two_factor")
        uow.session.execute(
            update(Organization)
            .where(Organization.id == actor.org_id)
            .values(require_admin_two_factor=required)
        )
