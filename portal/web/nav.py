"""What the layout's navigation needs on every page: the org switcher's list and the
badges (the inbox's open tasks, the bell's unread notifications). The features that
count them are wired in by ``create_app``; this module knows none of them."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, g
from flask_login import current_user

from portal.domain.actor import Actor

# A badge's number for the actor in their organization.
CountBadge = Callable[[Actor], int]

log = logging.getLogger(__name__)


def init_nav(
    app: Flask,
    *,
    my_organizations: Callable[[int], list[Any]],
    badges: Mapping[str, CountBadge],
) -> None:
    """``my_organizations(user_id)`` fills the switcher on pages outside an
    organization; each of ``badges`` (by the name templates call, e.g. ``inbox_count``)
    is counted at most once per request."""

    @app.context_processor
    def _nav() -> dict[str, Any]:
        def my_orgs() -> list[Any]:
            # Loaded lazily: pages that never render the switcher never pay for it.
            if "my_orgs" not in g:
                g.my_orgs = (
                    my_organizations(current_user.id) if current_user.is_authenticated else []
                )
            return g.my_orgs

        def badge(name: str, count: Callable[[Actor], int]) -> int | None:
            """A nav badge's number in the current organization, counted once per request;
            None outside an organization, and None (no badge) rather than a broken page
            if the count cannot be had."""
            if name not in g:
                setattr(g, name, None)
                actor = g.get("actor")
                if actor is not None and current_user.is_authenticated:
                    try:
                        setattr(g, name, count(actor))
                    except Exception:  # a badge must never fail the page
                        log.warning("%s unavailable", name, exc_info=True)
            return g.get(name)

        def counter(name: str, count: CountBadge) -> Callable[[], int | None]:
            return lambda: badge(name, count)

        # A page that counted a badge itself (the inbox does) leaves it in ``g``.
        return {"my_orgs": my_orgs} | {name: counter(name, count) for name, count in badges.items()}
