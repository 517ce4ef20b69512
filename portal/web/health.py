"""``/healthz`` (liveness: the database and Redis answer) and ``/readyz`` (readiness:
also the database at the migration head), for load balancers and orchestrators."""

from __future__ import annotations

from flask import Blueprint
from flask.typing import ResponseReturnValue

from portal.core.health import check, readiness

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def health() -> ResponseReturnValue:
    report = check()
    return report, (200 if report["ok"] else 503)


@bp.get("/readyz")
def ready() -> ResponseReturnValue:
    report = readiness()
    return report, (200 if report["ready"] else 503)
