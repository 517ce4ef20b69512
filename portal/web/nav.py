"""What the layout's navigation needs on every page: the org switcher's list."""

from __future__ import annotations

from typing import Any

from flask import Flask, g
from flask_login import current_user

from portal.accounts.services import list_my_organizations


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

        # The inbox arrives with the documents feature; the badge has its place already.
        return {"my_orgs": my_orgs, "inbox_count": None}
