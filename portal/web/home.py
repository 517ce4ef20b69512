"""The landing pages: the root redirect, the organization picker, an org's home."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from flask_login import current_user, login_required

from portal.accounts.services import list_my_organizations
from portal.web.tenancy import current_actor

bp = Blueprint("home", __name__)


@bp.get("/")
def index():  # type: ignore[no-untyped-def]
    if not current_user.is_authenticated:
        return redirect(url_for("accounts.login"))
    return redirect(url_for("home.organizations"))


@bp.get("/orgs")
@login_required
def organizations():  # type: ignore[no-untyped-def]
    orgs = list_my_organizations(current_user.id)
    if len(orgs) == 1:
        return redirect(url_for("home.dashboard", org=orgs[0].slug))
    return render_template("home/organizations.html", orgs=orgs)


@bp.get("/o/<org>/")
@login_required
def dashboard():  # type: ignore[no-untyped-def]
    return render_template("home/dashboard.html", actor=current_actor())


@bp.get("/healthz")
def health():  # type: ignore[no-untyped-def]
    from portal.core.health import check

    report = check()
    return report, (200 if report["ok"] else 503)
