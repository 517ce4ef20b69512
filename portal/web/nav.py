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

# Every badge's number for the actor in their organization, by badge name.
CountBadges = Callable[[Actor], Mapping[str, int]]

log = logging.getLogger(__name__)


def init_nav(
    app: Flask,
    *,
    my_organizations: Callable[[int], list[Any]],
    badges: tuple[str, ...],
    count_badges: CountBadges,
) -> None:
    """``my_organizations(user_id)`` fills the switcher on pages outside an
    organization; ``badges`` (by the names templates call, e.g. ``inbox_count``) are
    counted together by ``count_badges``, at most once per request, in one
    transaction."""

    @app.context_processor
    def _nav() -> dict[str, Any]:
        def my_orgs() -> list[Any]:
            # Loaded lazily: pages that never render the switcher never pay for it.
            if "my_orgs" not in g:
                g.my_orgs = (
                    my_organizations(current_user.id) if current_user.is_authenticated else []
                )
            return g.my_orgs

        def badge(name: str) -> int | None:
            """A nav badge's number in the current organization, counted once per request
            with the others; None outside an organization, and None (no badge) rather
            than a broken page if the counts cannot be had."""
            if name not in g:
                missing = [other for other in badges if other not in g]
                for other in missing:
                    setattr(g, other, None)
                actor = g.get("actor")
                if actor is not None and current_user.is_authenticated:
                    try:
                        counted = count_badges(actor)
                    except Exception:  # a badge must never fail the page
                        log.warning("%s unavailable", ", ".join(missing), exc_info=True)
                    else:
                        for other in missing:
                            setattr(g, other, counted.get(other))
            return g.get(name)

        def counter(name: str) -> Callable[[], int | None]:
            return lambda: badge(name)

        # A page that counted a badge itself (the inbox does) leaves it in ``g``.
        return {"my_orgs": my_orgs} | {name: counter(name) for name in badges}
