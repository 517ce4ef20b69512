"""The one place where refusals become HTTP answers.

HTML pages get a page with the message; htmx requests get a fragment (and a 200-range
swap is not attempted for errors, htmx shows it in the error target); JSON clients get
``{"error": {"code", "message", "details"}}``.
"""

from __future__ import annotations

import logging
import re

from flask import Flask, got_request_exception, jsonify, render_template, request
from flask_babel import gettext
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from portal.domain.errors import Conflict, DomainError, Forbidden, NotFound
from portal.web.messages import message_for

log = logging.getLogger(__name__)

STATUS_BY_CODE = {
    "login_throttled": 429,
    # the request layer (web.request_input)
    "control_character": 400,
    "value_too_long": 400,
    "body_too_large": 413,
    "json_invalid": 400,
    "json_too_deep": 400,
    "json_duplicate_key": 400,
    "tenant_not_set": 500,
    "cross_tenant_write": 403,
    # the transition pipeline (DESIGN §5)
    "stale_state": 409,
    "transition_not_allowed": 409,
    "comment_required": 422,
    "not_requester": 403,
    "not_assigned": 403,
    "self_approval": 403,
    "dispute_raiser": 403,
    "no_band_covers_amount": 403,
    "delegation_not_active": 403,
    "delegation_own_document": 403,
    "delegation_chain": 403,
    "handover_not_holder": 403,
    "exclusive_approval": 403,
    "bulk_empty": 400,
    "bulk_too_large": 400,
    "bulk_duplicates": 400,
    # a draft its requester threw away (documents.services.discard_draft)
    "document_discarded": 410,
    "discard_after_submission": 409,
}


def status_for(error: DomainError) -> int:
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, Forbidden):
        return 403
    if isinstance(error, Conflict):
        return 409
    return STATUS_BY_CODE.get(error.code, 422)


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return request.path.startswith("/api/") or best == "application/json"


def _answer(status: int, code: str, message: str, details: dict | None = None):
    # htmx accepts */* (which would pick JSON) but always wants a fragment to show.
    if request.headers.get("HX-Request") == "true":
        return render_template("errors/_fragment.html", message=message, code=code), status
    if _wants_json():
        return jsonify(error={"code": code, "message": message, "details": details or {}}), status
    return render_template("errors/page.html", status=status, message=message, code=code), status


# Paths whose last part is a link's secret: never written to a log.
_LINK_PATHS = re.compile(r"(/invitations/|/password/reset/)[^/]+")


def _loggable(path: str) -> str:
    return _LINK_PATHS.sub(r"\1…", path)


def init_errors(app: Flask) -> None:
    @app.errorhandler(DomainError)
    def _domain_error(error: DomainError):
        status = status_for(error)
        if status == 404:
            return _answer(404, "not_found", gettext("Page not found."))
        return _answer(status, error.code, message_for(error), error.params)

    @app.errorhandler(CSRFError)
    def _csrf_error(error: CSRFError):
        return _answer(400, "csrf_failed", message_for(DomainError("csrf_failed")))

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        if error.code is not None and error.code < 400:
            return error
        messages = {
            400: message_for(DomainError("bad_request")),
            403: message_for(DomainError("forbidden")),
            404: gettext("Page not found."),
            405: gettext("That action is not available here."),
            413: gettext("The upload is too large."),
            429: gettext("Too many requests. Please wait a moment."),
        }
        status = error.code or 500
        return _answer(status, f"http_{status}", messages.get(status, error.description or ""))

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        log.exception("unhandled error on %s %s", request.method, _loggable(request.path))
        if app.testing and app.config.get("PROPAGATE_UNEXPECTED", True):
            raise error  # Flask's own handling, which sends the signal below
        # Flask sends this only for errors no handler takes; this one takes them all,
        # so it tells the error trackers itself.
        got_request_exception.send(app, _async_wrapper=app.ensure_sync, exception=error)
        return _answer(500, "internal_error", gettext("Something went wrong on our side."))
