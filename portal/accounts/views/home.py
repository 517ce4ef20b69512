"""The start, the organization picker and an organization's home."""

from __future__ import annotations

from flask import redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_login import current_user, login_required

from portal.accounts import queries as account_queries
from portal.accounts.views import home_bp
from portal.web.tenancy import current_actor


@home_bp.get("/")
def index() -> ResponseReturnValue:
    if not current_user.is_authenticated:
        return redirect(url_for("accounts.login"))
    return redirect(url_for("home.organizations"))


@home_bp.get("/orgs")
@login_required
def organizations() -> ResponseReturnValue:
    orgs = account_queries.list_my_organizations(current_user.id)
    if len(orgs) == 1:
        return redirect(url_for("home.dashboard", org=orgs[0].slug))
    return render_template("home/organizations.html", orgs=orgs)


@home_bp.get("/o/<org>/")
@login_required
def dashboard() -> ResponseReturnValue:
    return render_template("home/dashboard.html", actor=current_actor())
