"""The landing pages (the start, the organization picker, an organization's home),
sign-in, sign-out, the language picker, and the members admin pages."""

from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user

from portal.accounts import queries as account_queries
from portal.accounts import services
from portal.accounts.forms import ConfirmForm, LocaleForm, LoginForm, MemberForm, RolesForm
from portal.config import SUPPORTED_LOCALES
from portal.core.security import is_safe_next
from portal.domain.errors import DomainError, NotFound
from portal.web.auth import admin_required, session_user
from portal.web.forms import attach_error
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("accounts", __name__)
home_bp = Blueprint("home", __name__)
admin_bp = Blueprint("members", __name__, url_prefix="/o/<org>/admin/members")


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


def _next_or(default: str) -> str:
    target = request.values.get("next")
    return target if target is not None and is_safe_next(target) else default


@bp.route("/login", methods=["GET", "POST"])
def login() -> ResponseReturnValue:
    if current_user.is_authenticated and request.method == "GET":
        return redirect(_next_or(url_for("home.organizations")))
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    status = 200
    if form.validate_on_submit():
        try:
            user = services.authenticate(
                form.email.data or "",
                form.password.data or "",
                address=request.remote_addr or "unknown",
                throttle=current_app.extensions["portal.login_throttle"],
            )
        except DomainError as error:
            form.form_errors.append(message_for(error))
            status = 429 if error.code == "login_throttled" else 401
        else:
            locale = session.get("locale")
            session.clear()
            if locale and not user.locale:
                session["locale"] = locale
            login_user(session_user(user))
            return redirect(_next_or(url_for("home.organizations")))
    elif request.method == "POST":
        status = 400
    return render_template("accounts/login.html", form=form), status


@bp.post("/logout")
@login_required
def logout() -> ResponseReturnValue:
    services.end_sessions(current_user.id)
    locale = str(get_locale())
    logout_user()
    session.clear()
    session["locale"] = locale  # the sign-in page stays in the reader's language
    flash(_("You have signed out."), "info")
    return redirect(url_for("accounts.login"))


@bp.post("/locale")
def set_locale() -> ResponseReturnValue:
    form = LocaleForm()
    if form.validate_on_submit() and form.locale.data in SUPPORTED_LOCALES:
        if current_user.is_authenticated:
            services.set_user_locale(current_user.id, form.locale.data)
        session["locale"] = form.locale.data
    return redirect(_next_or(url_for("home.index")))


# --- members admin -----------------------------------------------------------------------


@admin_bp.get("/")
@admin_required
def members() -> ResponseReturnValue:
    return _render_members(MemberForm())


def _render_members(
    form: MemberForm, status: int = 200, created: services.NewMember | None = None
) -> ResponseReturnValue:
    members = created.members if created is not None else None
    return (
        render_template(
            "accounts/members.html",
            members=members or account_queries.list_members(current_actor()),
            form=form,
            created=created,
            confirm=ConfirmForm(),
        ),
        status,
    )


@admin_bp.post("/")
@admin_required
def create_member() -> ResponseReturnValue:
    form = MemberForm()
    if not form.validate_on_submit():
        return _render_members(form, 422)
    try:
        created = services.create_member(
            current_actor(), email=form.email.data, name=form.name.data, roles=form.roles()
        )
    except DomainError as error:
        attach_error(form, error)
        return _render_members(form, 422)
    # The temporary password is shown on this one response and never stored in clear.
    return _render_members(MemberForm(formdata=None), 201, created=created)


@admin_bp.get("/<int:member_id>")
@admin_required
def member(member_id: int) -> ResponseReturnValue:
    row = account_queries.get_member(current_actor(), member_id)
    form = RolesForm(data={"admin": "admin" in row.roles, "auditor": "auditor" in row.roles})
    return render_template("accounts/member.html", member=row, form=form, confirm=ConfirmForm())


@admin_bp.post("/<int:member_id>/roles")
@admin_required
def set_roles(member_id: int) -> ResponseReturnValue:
    form = RolesForm()
    actor = current_actor()
    if form.validate_on_submit():
        try:
            services.set_member_roles(actor, member_id, form.roles())
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Roles saved."), "success")
            return redirect(url_for("members.member", member_id=member_id))
    row = account_queries.get_member(actor, member_id)
    return render_template(
        "accounts/member.html", member=row, form=form, confirm=ConfirmForm()
    ), 422


def _status_change(member_id: int, change, done_message: str) -> ResponseReturnValue:
    form = ConfirmForm()
    if form.validate_on_submit():
        try:
            change(current_actor(), member_id)
        except NotFound:
            raise  # another organization's member: 404, as everywhere else
        except DomainError as error:
            flash(message_for(error), "error")
            return redirect(url_for("members.member", member_id=member_id), code=303)
        flash(done_message, "success")
    return redirect(url_for("members.member", member_id=member_id))


@admin_bp.post("/<int:member_id>/deactivate")
@admin_required
def deactivate(member_id: int) -> ResponseReturnValue:
    return _status_change(member_id, services.deactivate_member, _("Membership deactivated."))


@admin_bp.post("/<int:member_id>/reactivate")
@admin_required
def reactivate(member_id: int) -> ResponseReturnValue:
    return _status_change(member_id, services.reactivate_member, _("Membership reactivated."))
