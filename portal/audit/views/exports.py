"""The search's exports, ``/o/<org>/audit/export.csv`` and ``export.json``: the same
query string as the search page, every page of it, in its order, streamed.

An export of a search that could not be read in full, or of more rows than the
configured maximum (``PORTAL_AUDIT_EXPORT_MAX_ROWS``), is refused with a page that says
why and links back to the search; nothing is recorded then."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from flask import Response, current_app, render_template, request, stream_with_context, url_for
from flask.typing import ResponseReturnValue
from flask_login import login_required

from portal.audit.services.exports import DEFAULT_MAX_ROWS, MIMETYPES, start_search_export
from portal.audit.views import audit_required, bp
from portal.domain.audit_query import AuditQuery, parse_audit_query
from portal.domain.errors import DomainError
from portal.web.messages import message_for
from portal.web.request_input import current_request_id
from portal.web.tenancy import current_actor

_SEARCH_PARAMETERS = frozenset(f.name for f in fields(AuditQuery)) | {"sort", "page"}


def _max_rows() -> int:
    settings = current_app.extensions.get("portal.settings")
    return int(getattr(settings, "audit_export_max_rows", DEFAULT_MAX_ROWS))


def _refused(messages: list[str]) -> ResponseReturnValue:
    # Back to the search as it was asked for, so the page shows each bad value again:
    # the search's own parameters only (never ``org``, nor url_for's ``_scheme`` and
    # ``_external``, which would send the link elsewhere).
    asked: dict[str, Any] = {
        name: value for name, value in request.args.items() if name in _SEARCH_PARAMETERS
    }
    back = url_for("audit.search", **asked)
    return render_template("audit/export_refused.html", messages=messages, back=back), 422


def _export(fmt: str) -> ResponseReturnValue:
    if request.method == "HEAD":
        # Only a GET takes an export (and is recorded); a HEAD learns the type.
        return Response(status=200, content_type=MIMETYPES[fmt])
    query, refusals = parse_audit_query(request.args)
    if refusals:
        return _refused(
            [message_for(DomainError("audit_export_bad_filter"))]
            + [message_for(r) for r in refusals]
        )
    try:
        export = start_search_export(
            current_actor(),
            query.on_page(1),
            fmt,
            request_id=current_request_id(),
            max_rows=_max_rows(),
        )
    except DomainError as error:
        if error.code != "audit_export_too_large":
            raise
        return _refused([message_for(error)])
    # The unit of work that reads the rows stays open while they stream.
    response = Response(stream_with_context(export.chunks), content_type=export.mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/export.csv")
@login_required
@audit_required
def export_csv() -> ResponseReturnValue:
    return _export("csv")


@bp.get("/export.json")
@login_required
@audit_required
def export_json() -> ResponseReturnValue:
    return _export("json")
