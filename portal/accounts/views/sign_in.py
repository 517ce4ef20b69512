"""Signing in (password, then a code when the account has a second factor), signing
out, the language picker, and getting back in with a forgotten password.

A browser that signed in to an account keeps a signed device cookie: the sign-in
throttle counts that device's failures on their own, so a stranger's failures never
lock the owner out of the devices they use.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import current_app, flash, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user
from werkzeug.wrappers import Response as WerkzeugResponse

from portal.accounts.forms import (
    CodeForm,
    ForgotPasswordForm,
    LocaleForm,
    LoginForm,
    ResetPasswordForm,
)
from portal.accounts.services import passwords, people, sign_in
from portal.accounts.views import bp
from portal.config import SUPPORTED_LOCALES
from portal.core.clock import clock
from portal.core.links import link_signer
from portal.domain.errors import DomainError
from portal.domain.naming import lookup_email
from portal.web.auth import safe_next, session_user
from portal.web.forms import attach_error
from portal.web.messages import message_for

DEVICE_COOKIE = "cs_device"
DEVICE_DAYS = 365
# How long the password step stays good while the code is being typed.
PENDING_SECONDS = 600


def _throttle() -> sign_in.LoginThrottle:
    throttle: sign_in.LoginThrottle = current_app.extensions["portal.login_throttle"]
    return throttle


def _email_tag(email: str) -> str:
    return hashlib.sha256(lookup_email(email).encode()).hexdigest()[:32]


def _device_for(email: str) -> tuple[str, int] | None:
    """This browser's device id and the password stamp it signed in with, if it signed
    in to ``email`` before."""
    payload = link_signer.read("device", request.cookies.get(DEVICE_COOKIE, "")) or {}
    device, stamp = payload.get("d"), payload.get("p")
    if payload.get("e") != _email_tag(email) or not isinstance(device, str):
        return None
    if isinstance(stamp, bool) or not isinstance(stamp, int):
        return None
    return device, stamp


def _refused(form: LoginForm | CodeForm, error: DomainError) -> tuple[int, dict[str, str]]:
    """The status and headers of a refused sign-in, with the reason on the form."""
    form.form_errors.append(message_for(error))
    seconds = error.params.get("seconds")
    headers = {"Retry-After": str(seconds)} if seconds else {}
    return (429 if seconds else 401), headers


def _start_session(signed: sign_in.SignedIn, target: str) -> WerkzeugResponse:
    """The session begins: a fresh one (no fixation), the language kept, this browser
    remembered as a device of the account."""
    locale = session.get("locale")
    session.clear()
    if locale and not signed.locale:
        session["locale"] = locale
    login_user(session_user(signed, two_factor=False))
    response = redirect(target)
    known = _device_for(signed.email)
    device = known[0] if known else secrets.token_urlsafe(16)
    # Bound to the password: after a change or a reset, no device is known any more.
    payload = {"e": _email_tag(signed.email), "d": device, "p": signed.password_stamp}
    response.set_cookie(
        DEVICE_COOKIE,
        link_signer.sign("device", payload),
        max_age=DEVICE_DAYS * 86_400,
        httponly=True,
        samesite="Lax",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
    )
    return response


@bp.route("/login", methods=["GET", "POST"])
def login() -> ResponseReturnValue:
    default = url_for("home.organizations")
    if current_user.is_authenticated and request.method == "GET":
        return redirect(safe_next(default))
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    status, ask_code = 200, False
    headers: dict[str, str] = {}
    if form.validate_on_submit():
        email = form.email.data or ""
        device = _device_for(email)
        attempt = sign_in.SignInAttempt(
            email=email,
            password=form.password.data or "",
            address=request.remote_addr or "unknown",
            device=device[0] if device else None,
            device_stamp=device[1] if device else None,
            code=(form.code.data or "").strip() or None,
        )
        try:
            signed = sign_in.authenticate(attempt, throttle=_throttle())
        except DomainError as error:
            status, headers = _refused(form, error)
            ask_code = error.code == "login_protected" or bool(attempt.code)
        else:
            if signed.needs_second_factor:
                session["pending_sign_in"] = {
                    "u": signed.id,
                    "v": signed.session_version,
                    "at": int(clock.now().timestamp()),
                    "next": safe_next(default),
                }
                return redirect(url_for(".second_factor"))
            return _start_session(signed, safe_next(default))
    elif request.method == "POST":
        status = 400
    page = render_template("accounts/login.html", form=form, ask_code=ask_code)
    return page, status, headers


@bp.route("/login/code", methods=["GET", "POST"])
def second_factor() -> ResponseReturnValue:
    pending = session.get("pending_sign_in")
    if not pending or clock.now().timestamp() - pending.get("at", 0) > PENDING_SECONDS:
        session.pop("pending_sign_in", None)
        flash(message_for(DomainError("sign_in_expired")), "info")
        return redirect(url_for(".login"))
    form = CodeForm()
    status, headers = 200, dict[str, str]()
    if form.validate_on_submit():
        try:
            signed = sign_in.complete_second_factor(
                pending["u"],
                form.code.data or "",
                session_version=pending["v"],
                throttle=_throttle(),
            )
        except DomainError as error:
            if error.code == "sign_in_expired":  # signed out everywhere meanwhile
                session.pop("pending_sign_in", None)
                flash(message_for(error), "info")
                return redirect(url_for(".login"))
            if error.code == "invalid_code":
                attach_error(form, error)
                status = 401
            else:
                status, headers = _refused(form, error)
        else:
            return _start_session(signed, pending["next"])
    elif request.method == "POST":
        status = 400
    return render_template("accounts/second_factor.html", form=form), status, headers


@bp.post("/logout")
@login_required
def logout() -> ResponseReturnValue:
    people.end_sessions(current_user.id)
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
            people.set_user_locale(current_user.id, form.locale.data)
        session["locale"] = form.locale.data
    return redirect(safe_next(url_for("home.index")))


# --- a forgotten password -----------------------------------------------------------------


@bp.route("/password/forgot", methods=["GET", "POST"])
def forgot_password() -> ResponseReturnValue:
    form = ForgotPasswordForm()
    status, headers = 200, dict[str, str]()
    if form.validate_on_submit():
        try:
            passwords.request_password_reset(
                form.email.data or "",
                address=request.remote_addr or "unknown",
                throttle=current_app.extensions["portal.reset_throttle"],
            )
        except DomainError as error:
            form.form_errors.append(message_for(error))
            status, headers = 429, {"Retry-After": str(error.params.get("seconds", 60))}
        else:
            # The same words whether or not the address has an account.
            flash(
                _(
                    "If %(email)s has an account, a link to choose a new password is on its "
                    "way. It works once, for an hour.",
                    email=(form.email.data or "").strip(),
                ),
                "info",
            )
            return redirect(url_for(".login"))
    elif request.method == "POST":
        status = 400
    return render_template("accounts/forgot_password.html", form=form), status, headers


@bp.route("/password/reset/<token>", methods=["GET", "POST"])
def reset_password(token: str) -> ResponseReturnValue:
    try:
        email = passwords.check_reset_link(token)
    except DomainError as error:
        return render_template("accounts/link_refused.html", message=message_for(error)), 410
    form = ResetPasswordForm()
    status = 200
    if form.validate_on_submit():
        try:
            passwords.reset_password(token, form.new_password.data or "")
        except DomainError as error:
            attach_error(form, error, default_field="new_password")
            status = 422
        else:
            if current_user.is_authenticated:
                logout_user()
            session.clear()
            flash(_("Your password is changed. Sign in with it now."), "success")
            return redirect(url_for(".login"))
    elif request.method == "POST":
        status = 422
    return render_template("accounts/reset_password.html", form=form, email=email), status
