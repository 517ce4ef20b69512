"""What the layout's navigation needs on every page: the org switcher's list and the
inbox badge."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, g
from flask_login import current_user

from portal.accounts.services import list_my_organizations
from portal.documents.services import count_unread_notifications
from portal.domain.actor import Actor
from portal.inbox.queries import count_open_tasks

log = logging.getLogger(__name__)


def init_nav(app: Flask) -> None:
    @app.context_processor
    def _nav() -> dict[str, Any]:
        def my_orgs() -> list[Any]:
            # Loaded lazily: pages that never render the switcher never pay for it.
            if "my_orgs" not in g:
                g.my_orgs = (
                    list_my_organizations(current_user.id) if current_user.is_authenticated else []
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

        def inbox_count() -> int | None:
            """The signed-in member's open tasks (the inbox page sets it itself)."""
            return badge("inbox_count", count_open_tasks)

        def unread_count() -> int | None:
            """Unread notifications for the bell."""
            return badge("unread_count", count_unread_notifications)

        return {"my_orgs": my_orgs, "inbox_count": inbox_count, "unread_count": unread_count}
