"""The signed-in user as Flask-Login sees it, and the access decorators for views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, ParamSpec, Protocol

from flask import Flask, Response, abort, current_app, flash, g, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import current_user

from portal.core.security import is_safe_next
from portal.domain.errors import DomainError
from portal.extensions import login_manager
from portal.web.messages import message_for


@dataclass(frozen=True)
class SessionUser:
    """What a request knows about its user. The session id carries the session version,
    so bumping the version on the server (sign-out) invalidates every copy of a cookie."""

    id: int
    email: str
    name: str
    locale: str | None
    session_version: int
    # Active memberships, loaded with the user on each request (empty at sign-in).
    memberships: tuple[Any, ...] = ()
    # The account signs in with a second factor.
    two_factor: bool = False

    is_authenticated = True
    is_active = True
    is_anonymous = False

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"


class Account(Protocol):
    """A user account as sign-in knows it."""

    @property
    def id(self) -> int: ...
    @property
    def email(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def locale(self) -> str | None: ...
    @property
    def session_version(self) -> int: ...


class StoredUser(Account, Protocol):
    """What the user loader answers with: the account and its active memberships."""

    @property
    def memberships(self) -> tuple[Any, ...]: ...
    @property
    def two_factor(self) -> bool: ...


# (user id, session version) -> the user, or None when that session has ended.
LoadUser = Callable[[int, int], StoredUser | None]


def session_user(
    user: Account, memberships: tuple[Any, ...] = (), *, two_factor: bool = False
) -> SessionUser:
    """The session's user; signing in knows no memberships yet (the next request loads
    them with the user)."""
    return SessionUser(
        user.id, user.email, user.name, user.locale, user.session_version, memberships, two_factor
    )


def init_auth(app: Flask, *, load_user: LoadUser) -> None:
    """Sign-in for every page: ``load_user`` (the accounts feature's, wired in by
    ``create_app``) turns a session cookie into its user."""

    @login_manager.user_loader
    def _load_user(session_id: str) -> SessionUser | None:
        try:
            user_id, version = (int(part) for part in session_id.split(":", 1))
        except ValueError:
            return None
        user = load_user(user_id, version)
        if user is None:
            # The cookie named a session the server has ended (sign-out elsewhere,
            # deactivation): say so, rather than the generic "please sign in".
            g.session_expired = True
            return None
        return session_user(user, user.memberships, two_factor=user.two_factor)

    login_manager.session_protection = "basic"


@login_manager.unauthorized_handler
def _unauthorized() -> Any:
    """Send the visitor to sign in, and back to this page afterwards.

    ``next`` is the relative path (Flask-Login's default is the absolute URL, which
    ``is_safe_next`` rightly refuses); htmx requests get a full-page redirect header.
    """
    expired = g.get("session_expired", False)
    flash(
        message_for(DomainError("session_expired"))
        if expired
        else _("Please sign in to continue."),
        "info",
    )
    target = request.full_path.rstrip("?") if request.method == "GET" else None
    location = url_for("accounts.login", next=target)
    if request.headers.get("HX-Request") == "true":
        return Response(status=401, headers={"HX-Redirect": location})
    return redirect(location)


def safe_next(default: str) -> str:
    """Where to go after a form: the request's ``next`` if it stays on this site."""
    target = request.values.get("next")
    return target if target is not None and is_safe_next(target) else default


P = ParamSpec("P")


def admin_required(
    view: Callable[P, ResponseReturnValue],
) -> Callable[P, ResponseReturnValue]:
    """For pages under /o/<org>/admin: members who are not admins get 403; an admin of
    an organization that asks its admins for a second factor, without one, is sent to
    turn it on first."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        actor = g.get("actor")
        if actor is None:
            abort(404)
        if not actor.is_admin:
            abort(403)
        if g.get("admin_second_factor_missing"):
            flash(message_for(DomainError("admin_two_factor_required")), "info")
            page = current_app.extensions["portal.second_factor_page"]
            target = request.full_path.rstrip("?") if request.method == "GET" else None
            return redirect(url_for(page, next=target))
        return view(*args, **kwargs)

    return wrapper
