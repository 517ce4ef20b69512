"""A document's timeline for the auditor (every decision with its authority, approver set,
resolution and hash; the time in each state; the path on the flow's diagram), its
"Verify" button, its print view, and its complete record as JSON. Admins and auditors
only: to anyone else each of these is a 404."""

from __future__ import annotations

import json

from flask import Response, render_template, request
from flask.typing import ResponseReturnValue

from portal.audit.queries.timeline import (
    DocumentCheck,
    DocumentTimeline,
    check_of,
    document_timeline,
    verify_document,
)
from portal.audit.services.document_record import export_document_record
from portal.audit.views import audit_required, bp
from portal.audit.views.timeline_words import timeline_page
from portal.web.request_input import current_request_id
from portal.web.tenancy import current_actor


def _page(
    template: str, timeline: DocumentTimeline, check: DocumentCheck | None = None
) -> ResponseReturnValue:
    return render_template(template, **timeline_page(timeline, current_actor(), check))


@bp.get("/documents/<reference>")
@audit_required
def document(reference: str) -> ResponseReturnValue:
    return _page("audit/document.html", document_timeline(current_actor(), reference))


@bp.post("/documents/<reference>/verify")
@audit_required
def verify(reference: str) -> ResponseReturnValue:
    """With htmx, the result block alone; without, the timeline with the result in it."""
    if request.headers.get("HX-Request") == "true":
        result = verify_document(current_actor(), reference)
        return render_template("audit/_chain_result.html", result=result)
    # Reading the timeline checks the chain again: its result is the answer.
    timeline = document_timeline(current_actor(), reference)
    return _page("audit/document.html", timeline, check_of(timeline))


@bp.get("/documents/<reference>/print")
@audit_required
def print_view(reference: str) -> ResponseReturnValue:
    return _page("audit/print.html", document_timeline(current_actor(), reference))


@bp.get("/documents/<reference>/record.json")
@audit_required
def record(reference: str) -> ResponseReturnValue:
    if request.method == "HEAD":  # only a GET takes (and records) the record
        return Response(status=200, mimetype="application/json")
    exported = export_document_record(current_actor(), reference, request_id=current_request_id())
    return Response(
        json.dumps(exported.body, indent=2, ensure_ascii=False),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{exported.filename}"'},
    )
