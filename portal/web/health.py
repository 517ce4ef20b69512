"""``/healthz``: whether the database and Redis answer, for load balancers."""

from __future__ import annotations

from flask import Blueprint
from flask.typing import ResponseReturnValue

from portal.core.health import check

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def health() -> ResponseReturnValue:
    report = check()
    return report, (200 if report["ok"] else 503)
