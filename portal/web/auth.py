"""The signed-in user as Flask-Login sees it, and the access decorators for views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from flask import abort, g
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from portal.accounts.services import load_session_user
from portal.extensions import login_manager


@dataclass(frozen=True)
class SessionUser:
    """What a request knows about its user. The session id carries the session version,
    so bumping the version on the server (sign-out) invalidates every copy of a cookie."""

    id: int
    email: str
    name: str
    locale: str | None
    session_version: int

    is_authenticated = True
    is_active = True
    is_anonymous = False

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"


def session_user(user: Any) -> SessionUser:
    return SessionUser(user.id, user.email, user.name, user.locale, user.session_version)


@login_manager.user_loader
def _load_user(session_id: str) -> SessionUser | None:
    try:
        user_id, version = (int(part) for part in session_id.split(":", 1))
    except ValueError:
        return None
    user = load_session_user(user_id, version)
    return session_user(user) if user is not None else None


login_manager.login_view = "accounts.login"
login_manager.login_message = _l("Please sign in to continue.")
login_manager.login_message_category = "info"
login_manager.session_protection = "basic"

F = TypeVar("F", bound=Callable[..., Any])


def admin_required(view: F) -> F:
    """For pages under /o/<org>/admin: members who are not admins get 403."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        actor = g.get("actor")
        if actor is None:
            abort(404)
        if not actor.is_admin:
            abort(403)
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
