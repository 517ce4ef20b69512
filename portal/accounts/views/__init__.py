"""Accounts' pages, a module each: signing in and out and getting back in (``sign_in``), the person's own account (``account``), following an
invitation (``invitations``), the members admin pages (``members``) and an
organization's settings with a member's own zone (``settings``)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("accounts", __name__)
account_bp = Blueprint("account", __name__, url_prefix="/account")
invitations_bp = Blueprint("invitations", __name__, url_prefix="/invitations")
admin_bp = Blueprint("members", __name__, url_prefix="/o/<org>/admin/members")
settings_bp = Blueprint("settings", __name__, url_prefix="/o/<org>/settings")

# The modules register their routes on the blueprints above when imported.
from portal.accounts.views import (  # noqa: E402, F401
    account,
    invitations,
    members,
    settings,
    sign_in,
)
