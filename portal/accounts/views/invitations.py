"""Following an invitation's link: make an account with your own password and join, or
sign in with the account you have and accept."""

from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user

from portal.accounts.forms import ConfirmForm, JoinForm
from portal.accounts.services import joining
from portal.accounts.views import invitations_bp
from portal.domain.errors import DomainError
from portal.web.auth import session_user
from portal.web.forms import attach_error
from portal.web.messages import message_for


def _refused(error: DomainError) -> ResponseReturnValue:
    page = render_template("accounts/link_refused.html", message=message_for(error))
    return page, 404 if error.code == "invitation_invalid" else 410


def _page(token: str, view: joining.InvitationView, form: JoinForm, status: int = 200):
    page = render_template(
        "accounts/invitation.html",
        token=token,
        invitation=view,
        form=form,
        confirm=ConfirmForm(),
        signed_in_as=current_user.email if current_user.is_authenticated else None,
    )
    return page, status


@invitations_bp.get("/<token>")
def accept(token: str) -> ResponseReturnValue:
    try:
        view = joining.read_invitation(token)
    except DomainError as error:
        return _refused(error)
    return _page(token, view, JoinForm(data={"name": view.name}))


@invitations_bp.post("/<token>/join")
def join(token: str) -> ResponseReturnValue:
    """A new account: the name and password the person chose, and in they go."""
    form = JoinForm()
    try:
        view = joining.read_invitation(token)
        if not form.validate_on_submit():
            return _page(token, view, form, 422)
        joined = joining.accept_with_new_account(
            token,
            name=form.name.data or "",
            password=form.new_password.data or "",
            locale=str(get_locale()),
        )
    except DomainError as error:
        if error.code == "invitation_has_account":  # made meanwhile: sign in to accept
            flash(message_for(error), "info")
            return _page(token, joining.read_invitation(token), form, 409)
        if error.field is None:
            return _refused(error)
        attach_error(form, error, default_field="new_password")
        return _page(token, view, form, 422)
    if current_user.is_authenticated:
        logout_user()
    login_user(session_user(joined))
    flash(_("Welcome! Your account is ready."), "success")
    return redirect(url_for("home.dashboard", org=joined.org_slug))


@invitations_bp.post("/<token>/accept")
def accept_signed_in(token: str) -> ResponseReturnValue:
    """The signed-in account accepts (it must be the invited address)."""
    if not current_user.is_authenticated:
        return redirect(url_for("accounts.login", next=url_for(".accept", token=token)))
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for(".accept", token=token))
    try:
        joined = joining.accept_as_account(current_user.id, token)
    except DomainError as error:
        if error.code == "invitation_other_account":
            flash(message_for(error), "error")
            return redirect(url_for(".accept", token=token))
        return _refused(error)
    flash(_("You have joined."), "success")
    return redirect(url_for("home.dashboard", org=joined.org_slug))
