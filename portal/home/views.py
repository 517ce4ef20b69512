"""The start, the organization picker and an organization's home (one per role)."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_login import current_user, login_required

from portal.accounts import queries as account_queries
from portal.home.queries import home_summary
from portal.web.tenancy import current_actor

bp = Blueprint("home", __name__)

# A document reference as the portal writes them (EXP-2026-00042), give or take case.
_MAX_REFERENCE = 40


@bp.get("/")
def index() -> ResponseReturnValue:
    if not current_user.is_authenticated:
        return redirect(url_for("accounts.login"))
    return redirect(url_for("home.organizations"))


@bp.get("/orgs")
@login_required
def organizations() -> ResponseReturnValue:
    orgs = account_queries.list_my_organizations(current_user.id)
    if len(orgs) == 1:
        return redirect(url_for("home.dashboard", org=orgs[0].slug))
    return render_template("home/organizations.html", orgs=orgs)


@bp.get("/o/<org>/")
@login_required
def dashboard() -> ResponseReturnValue:
    actor = current_actor()
    # "Open a document by its reference": the document page decides who may see it.
    reference = request.args.get("reference", "").strip().upper()
    if reference and len(reference) <= _MAX_REFERENCE:
        return redirect(url_for("documents.detail", reference=reference))
    return render_template("home/dashboard.html", actor=actor, home=home_summary(actor))
