"""Accounts' pages, a module each: the landing pages (``home``), signing in and out and
getting back in (``sign_in``), the person's own account (``account``), following an
invitation (``invitations``) and the members admin pages (``members``)."""

from __future__ import annotations

from flask import Blueprint

home_bp = Blueprint("home", __name__)
bp = Blueprint("accounts", __name__)
account_bp = Blueprint("account", __name__, url_prefix="/account")
invitations_bp = Blueprint("invitations", __name__, url_prefix="/invitations")
admin_bp = Blueprint("members", __name__, url_prefix="/o/<org>/admin/members")

# The modules register their routes on the blueprints above when imported.
from portal.accounts.views import account, home, invitations, members, sign_in  # noqa: E402, F401
