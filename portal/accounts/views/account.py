"""The person's own account: their name, password, two-factor sign-in and the
organizations they belong to (and leaving one). Nobody else reaches these pages."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user

from portal.accounts.forms import (
    ChangePasswordForm,
    CodeForm,
    ConfirmForm,
    DisableTwoFactorForm,
    PasswordForm,
    ProfileForm,
)
from portal.accounts.queries import organizations_of
from portal.accounts.services import passwords, people, two_factor
from portal.accounts.views import account_bp
from portal.domain.credentials import RecoveryCodes
from portal.domain.errors import DomainError
from portal.web.auth import safe_next
from portal.web.forms import attach_error
from portal.web.messages import message_for
from portal.web.qr import qr_svg
from portal.web.tenancy import current_actor


def _overview(status: int = 200, **forms: Any) -> ResponseReturnValue:
    page = render_template(
        "account/overview.html",
        profile=forms.get("profile")
        or ProfileForm(formdata=None, data={"name": current_user.name}),
        status_2fa=two_factor.two_factor_status(current_user.id),
        orgs=organizations_of(current_user.memberships),
        confirm=ConfirmForm(),
    )
    return page, status


@account_bp.get("/")
@login_required
def overview() -> ResponseReturnValue:
    return _overview()


@account_bp.post("/profile")
@login_required
def profile() -> ResponseReturnValue:
    form = ProfileForm()
    if not form.validate_on_submit():
        return _overview(422, profile=form)
    try:
        people.rename_account(current_user.id, form.name.data or "")
    except DomainError as error:
        attach_error(form, error)
        return _overview(422, profile=form)
    flash(_("Your name is saved."), "success")
    return redirect(url_for(".overview"))


@account_bp.route("/password", methods=["GET", "POST"])
@login_required
def password() -> ResponseReturnValue:
    form = ChangePasswordForm()
    status = 200
    if form.validate_on_submit():
        try:
            version = passwords.change_password(
                current_user.id,
                current=form.current_password.data or "",
                new=form.new_password.data or "",
            )
        except DomainError as error:
            attach_error(form, error, default_field="new_password")
            status = 422
        else:
            # This browser carries on under the new session version; every other ended.
            login_user(replace(current_user._get_current_object(), session_version=version))
            flash(_("Your password is changed. You were signed out everywhere else."), "success")
            return redirect(url_for(".overview"))
    elif form.is_submitted():
        status = 422
    return render_template("account/password.html", form=form), status


# --- two-factor sign-in ---------------------------------------------------------------------


def _two_factor_page(status: int = 200, *, codes: RecoveryCodes | None = None, **forms: Any):
    state = two_factor.two_factor_status(current_user.id)
    page = render_template(
        "account/two_factor.html",
        state=state,
        qr=qr_svg(state.pending.uri, _("QR code to scan with an authenticator app"))
        if state.pending
        else None,
        # The forms not being answered start empty (never holding the code just typed).
        confirm_form=forms.get("confirm_form") or CodeForm(formdata=None),
        disable_form=forms.get("disable_form") or DisableTwoFactorForm(formdata=None),
        renew_form=forms.get("renew_form") or CodeForm(formdata=None),
        start_form=forms.get("start_form") or PasswordForm(formdata=None),
        codes=codes,
        next=safe_next(""),
    )
    return page, status


@account_bp.get("/two-factor")
@login_required
def two_factor_page() -> ResponseReturnValue:
    return _two_factor_page()


@account_bp.post("/two-factor/start")
@login_required
def two_factor_start() -> ResponseReturnValue:
    form = PasswordForm()
    if not form.validate_on_submit():
        return _two_factor_page(422, start_form=form)
    try:
        two_factor.start_two_factor(current_user.id, password=form.password.data or "")
    except DomainError as error:
        attach_error(form, error, default_field="password")
        return _two_factor_page(422, start_form=form)
    return redirect(url_for(".two_factor_page", next=safe_next("") or None))


@account_bp.post("/two-factor/confirm")
@login_required
def two_factor_confirm() -> ResponseReturnValue:
    form = CodeForm()
    if not form.validate_on_submit():
        return _two_factor_page(422, confirm_form=form)
    try:
        turned_on = two_factor.confirm_two_factor(current_user.id, form.code.data or "")
    except DomainError as error:
        attach_error(form, error, default_field="code")
        return _two_factor_page(422, confirm_form=form)
    # This browser carries on; every other session (whoever held it) has ended.
    signed_in = replace(
        current_user._get_current_object(),
        two_factor=True,
        session_version=turned_on.session_version,
    )
    login_user(signed_in)
    flash(_("Two-factor sign-in is on. You were signed out everywhere else."), "success")
    return _two_factor_page(codes=turned_on.codes)


@account_bp.post("/two-factor/disable")
@login_required
def two_factor_disable() -> ResponseReturnValue:
    form = DisableTwoFactorForm()
    if not form.validate_on_submit():
        return _two_factor_page(422, disable_form=form)
    try:
        two_factor.disable_two_factor(
            current_user.id, password=form.password.data or "", code=form.code.data or ""
        )
    except DomainError as error:
        attach_error(form, error, default_field="code")
        return _two_factor_page(422, disable_form=form)
    flash(_("Two-factor sign-in is off."), "success")
    return redirect(url_for(".two_factor_page"))


@account_bp.post("/two-factor/recovery-codes")
@login_required
def two_factor_renew() -> ResponseReturnValue:
    form = CodeForm()
    if not form.validate_on_submit():
        return _two_factor_page(422, renew_form=form)
    try:
        codes = two_factor.renew_recovery_codes(current_user.id, form.code.data or "")
    except DomainError as error:
        attach_error(form, error, default_field="code")
        return _two_factor_page(422, renew_form=form)
    flash(_("New recovery codes are ready; the old ones no longer work."), "success")
    return _two_factor_page(codes=codes)


# --- organizations ----------------------------------------------------------------------


@account_bp.route("/organizations/<org>/leave", methods=["GET", "POST"])
@login_required
def leave() -> ResponseReturnValue:
    """Asked first (what leaving means), then done."""
    actor = current_actor()  # tenancy took the slug: an organization the person is in
    name = next((m.name for m in current_user.memberships if m.slug == actor.org_slug), "")
    if request.method == "GET":
        return render_template("account/leave.html", org=name, confirm=ConfirmForm())
    if ConfirmForm().validate_on_submit():
        try:
            people.leave_organization(actor)
        except DomainError as error:
            flash(message_for(error), "error")
        else:
            flash(_("You have left %(org)s.", org=name), "success")
    return redirect(url_for(".overview"))
