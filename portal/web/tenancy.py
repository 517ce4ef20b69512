"""Tenancy in the URL: ``/o/<org>/…`` becomes ``g.actor`` before any view runs.

An unknown slug and an organization the user does not belong to both answer 404, so
URL guessing reveals nothing. ``url_for`` fills ``org`` in from the current request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, abort, g, request
from flask_login import current_user

from portal.core import logs
from portal.domain.actor import Actor
from portal.extensions import login_manager

# (the user's memberships, org slug, user id, user's locale) -> the actor, or None when
# the user is not an active member of an organization at that slug.
ResolveActor = Callable[[Iterable[Any], str, int, str | None], Actor | None]
# The user's memberships -> the org switcher's list.
OrganizationsOf = Callable[[Iterable[Any]], list[Any]]
# (the user's memberships, org slug) -> whether that organization's admins need a
# second factor.
AdminTwoFactor = Callable[[Iterable[Any], str], bool]


def current_actor() -> Actor:
    actor = g.get("actor")
    if actor is None:
        abort(404)
    return actor


def init_tenancy(
    app: Flask,
    *,
    resolve_actor: ResolveActor,
    organizations_of: OrganizationsOf,
    admin_two_factor: AdminTwoFactor,
    second_factor_page: str,
) -> None:
    """``/o/<org>/…`` for every page; ``create_app`` wires in how the accounts feature
    turns memberships into an actor and into the switcher's list, and where an admin
    turns on the second factor their organization asks for."""
    app.extensions["portal.second_factor_page"] = second_factor_page

    @app.url_value_preprocessor
    def _pull_org(endpoint: str | None, values: dict[str, Any] | None) -> None:
        if not values or "org" not in values:
            return
        slug = values.pop("org")
        if not current_user.is_authenticated:
            # Redirect to sign-in without saying whether the organization exists.
            abort(login_manager.unauthorized())
        # The memberships came with the user, in the same statement: no query here.
        memberships = current_user.memberships
        actor = resolve_actor(memberships, slug, current_user.id, current_user.locale)
        if actor is None:
            abort(404)
        g.actor = actor
        logs.bind(org=actor.org_slug, member=actor.member_id)
        g.my_orgs = organizations_of(memberships)  # the layout's org switcher
        g.admin_second_factor_missing = (
            actor.is_admin and not current_user.two_factor and admin_two_factor(memberships, slug)
        )

    @app.url_defaults
    def _push_org(endpoint: str, values: dict[str, Any]) -> None:
        if "org" in values or not app.url_map.is_endpoint_expecting(endpoint, "org"):
            return
        actor = g.get("actor")
        if actor is not None:
            values["org"] = actor.org_slug

    @app.context_processor
    def _inject_actor() -> dict[str, Any]:
        return {"actor": g.get("actor"), "current_path": request.path}
