"""What the layout's navigation needs on every page: the org switcher's list and the
inbox badge."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, g
from flask_login import current_user

from portal.accounts.services import list_my_organizations
from portal.documents.services import count_unread_notifications
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

        def inbox_count() -> int | None:
            """The signed-in member's open tasks in the current organization; None
            outside an organization, and None (no badge) rather than a broken page if
            the count cannot be had."""
            if "inbox_count" not in g:
                g.inbox_count = None
                actor = g.get("actor")
                if actor is not None and current_user.is_authenticated:
                    try:
                        g.inbox_count = count_open_tasks(actor)
                    except Exception:  # the badge must never fail the page
                        log.warning("inbox count unavailable", exc_info=True)
            return g.inbox_count

        def unread_count() -> int | None:
            """Unread notifications for the bell, with the same care as the inbox badge."""
            if "unread_count" not in g:
                g.unread_count = None
                actor = g.get("actor")
                if actor is not None and current_user.is_authenticated:
                    try:
                        g.unread_count = count_unread_notifications(actor)
                    except Exception:  # the bell must never fail the page
                        log.warning("notification count unavailable", exc_info=True)
            return g.unread_count

        return {"my_orgs": my_orgs, "inbox_count": inbox_count, "unread_count": unread_count}
