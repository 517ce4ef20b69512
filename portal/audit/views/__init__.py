"""The audit pages under ``/o/<org>/audit``: the search (the audit home), a document's
timeline and its print view, the exports, the verification of the chains, and where
approvals stall. Admins and auditors only: to anyone else every audit URL, fragment and
export is a 404 (``audit_required``), and every service checks the same again."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec

from flask import Blueprint, abort, g
from flask.typing import ResponseReturnValue
from flask_login import current_user

from portal.domain.actor import may_audit
from portal.extensions import login_manager

bp = Blueprint("audit", __name__, url_prefix="/o/<org>/audit")

P = ParamSpec("P")


def audit_required(
    view: Callable[P, ResponseReturnValue],
) -> Callable[P, ResponseReturnValue]:
    """Signed-in admins and auditors of the organization; a 404 for everyone else."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        actor = g.get("actor")
        if actor is None or not may_audit(actor):
            abort(404)
        return view(*args, **kwargs)

    return wrapper


# The pages register themselves on ``bp`` when imported.
from portal.audit.views import (  # noqa: E402,F401
    documents,
    exports,
    search,
    stalls,
    verification,
)
