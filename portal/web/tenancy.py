"""Tenancy in the URL: ``/o/<org>/…`` becomes ``g.actor`` before any view runs.

An unknown slug and an organization the user does not belong to both answer 404, so
URL guessing reveals nothing. ``url_for`` fills ``org`` in from the current request.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, abort, g, request
from flask_login import current_user

from portal.accounts.services import actor_in, organizations_of
from portal.domain.actor import Actor
from portal.extensions import login_manager


def current_actor() -> Actor:
    actor = g.get("actor")
    if actor is None:
        abort(404)
    return actor


def init_tenancy(app: Flask) -> None:
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
        actor = actor_in(memberships, slug, current_user.id, current_user.locale)
        if actor is None:
            abort(404)
        g.actor = actor
        g.my_orgs = organizations_of(memberships)  # the layout's org switcher

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
