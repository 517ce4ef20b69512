"""The flow editor's JSON API: the draft (read, save, discard, publish), the versions,
what publishing would change, and the org chart's pickers.

Admins only, in their own organization. The editor saves on every change: a save
names the revision it was edited from, so a colleague's save in between answers 409
``stale_revision`` with the current revision, and nothing is overwritten. A body that
is not a graph is refused naming the path of its first problem (``grants[2].min_amount``)
and changes nothing; a graph that breaks the flow rules is saved and answered with its
violations, each with its message in the admin's language. Errors come back as
``{"error": {"code", "message", "details"}}`` (``portal.web.errors``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from flask.typing import ResponseReturnValue
from flask_babel import get_locale

from portal.domain import graph_json
from portal.domain.actor import Role
from portal.domain.errors import DomainError, NotFound
from portal.domain.graph import GranteeKind
from portal.domain.graph_json import MAX_DOCUMENT_BYTES
from portal.domain.money import parse_amount
from portal.domain.text_input import MAX_ID, json_whole_number, whole_number
from portal.domain.validate import Violation, errors_in
from portal.flows import queries
from portal.flows.services import drafts, pages, publishing, route_preview, transfer
from portal.flows.services.validation import FlowInvalid
from portal.flows.wording.changes import publish_summary
from portal.flows.wording.exclusions import exclusion_text
from portal.web.auth import admin_required
from portal.web.messages import gap_message, message_for
from portal.web.money_input import number_form, reader_locale
from portal.web.request_input import json_body
from portal.web.tenancy import current_actor

bp = Blueprint("flows_api", __name__, url_prefix="/o/<org>/flows/<kind>/api")

# The wrapper {"revision": …, "graph": …} around a graph of at most MAX_DOCUMENT_BYTES.
MAX_BODY_BYTES = MAX_DOCUMENT_BYTES + 1_000


def _violations(violations: list[Violation]) -> list[dict[str, Any]]:
    return [v.to_json(message_for(v)) for v in violations]


def _draft_json(draft: drafts.DraftView) -> dict[str, Any]:
    errors = len(errors_in(draft.violations))
    return {
        "kind": draft.kind,
        "revision": draft.revision,
        "base_version": draft.base_version,
        "saved": draft.saved,
        "publishable": draft.publishable,
        "errors": errors,
        "warnings": len(draft.violations) - errors,
        "graph": graph_json.to_json(draft.graph),
        "violations": _violations(draft.violations),
        "updated_at": draft.updated_at.isoformat() if draft.updated_at else None,
        "updated_by": draft.updated_by,
        "updated_by_me": draft.updated_by_id is not None
        and draft.updated_by_id == current_actor().member_id,
    }


def _body() -> dict[str, Any]:
    """The request's JSON object, read by the one strict reader (amounts kept as
    Decimal, no key twice); never a 500 on bad bytes."""
    try:
        data = json_body(max_bytes=MAX_BODY_BYTES)
    except DomainError as error:
        if error.code == "body_too_large":
            raise graph_json.GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES) from None
        raise
    if not isinstance(data, dict):
        raise DomainError("bad_request")
    return data


def _revision(data: dict[str, Any]) -> int:
    return json_whole_number(data.get("revision"), field="revision")


@bp.get("/draft")
@admin_required
def draft(kind: str) -> ResponseReturnValue:
    return jsonify(_draft_json(drafts.get_draft(current_actor(), kind)))


@bp.put("/draft")
@admin_required
def save(kind: str) -> ResponseReturnValue:
    data = _body()
    revision = _revision(data)
    graph = graph_json.from_json(data.get("graph"))
    return jsonify(_draft_json(drafts.save_draft(current_actor(), kind, graph, revision=revision)))


@bp.put("/draft/import")
@admin_required
def import_file(kind: str) -> ResponseReturnValue:
    """A file as exported (its bytes are the body) over the draft at ``?revision=``: read
    by the same loader as the flow page's upload, so a file that is not JSON says the
    line and column, a wrong shape names its path, and either changes nothing."""
    revision = whole_number(request.args.get("revision", ""), field="revision")
    if (request.content_length or 0) > MAX_DOCUMENT_BYTES:
        raise graph_json.GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
    raw = request.get_data(cache=False)
    draft = transfer.import_draft(current_actor(), raw, kind=kind, revision=revision)
    return jsonify(_draft_json(draft))


@bp.post("/draft/discard")
@admin_required
def discard(kind: str) -> ResponseReturnValue:
    draft = drafts.discard_draft(current_actor(), kind, revision=_revision(_body()))
    if draft is None:  # never published: nothing is left to open
        raise NotFound("flow")
    return jsonify(_draft_json(draft))


@bp.post("/draft/publish")
@admin_required
def publish(kind: str) -> ResponseReturnValue:
    try:
        published = publishing.publish_draft(current_actor(), kind, revision=_revision(_body()))
    except FlowInvalid as refused:
        error = {
            "code": refused.code,
            "message": message_for(refused),
            "details": {"violations": _violations(refused.violations)},
        }
        return jsonify(error=error), 422
    return jsonify(
        {
            "version": published.view.version,
            "digest": published.view.digest,
            "published_at": published.view.published_at.isoformat(),
            "draft": _draft_json(published.draft),
        }
    )


@bp.post("/draft/from-version")
@admin_required
def from_version(kind: str) -> ResponseReturnValue:
    data = _body()
    version = json_whole_number(data.get("version"), field="version", minimum=1)
    draft = drafts.draft_from_version(current_actor(), kind, version, revision=_revision(data))
    return jsonify(_draft_json(draft))


@bp.get("/changes")
@admin_required
def changes(kind: str) -> ResponseReturnValue:
    """What publishing would change, worded for the reader: labels in their language,
    grants as sentences with the org chart's names and their locale's amounts."""
    found = pages.draft_changes(current_actor(), kind)
    return jsonify(publish_summary(found, str(get_locale())))


@bp.get("/versions")
@admin_required
def versions(kind: str) -> ResponseReturnValue:
    return jsonify(
        [
            {
                "version": v.version,
                "digest": v.digest,
                "published_at": v.published_at.isoformat(),
                "published_by": v.published_by,
            }
            for v in queries.list_versions(current_actor(), kind)
        ]
    )


@bp.get("/versions/<int:version>")
@admin_required
def version(kind: str, version: int) -> ResponseReturnValue:
    view = queries.get_version(current_actor(), kind, version)
    return jsonify({"version": view.version, "graph": graph_json.to_json(view.graph)})


@bp.post("/route")
@admin_required
def route(kind: str) -> ResponseReturnValue:
    """Who would approve a member's document of an amount under the saved draft: each
    approval step with its deciders, or what strands it."""
    data = _body()
    member = data.get("member_id")
    if isinstance(member, bool) or not isinstance(member, int) or not 0 < member <= MAX_ID:
        raise DomainError("unknown_requester", field="member_id")
    # The amount the admin typed in the editor, read as they write amounts.
    amount = parse_amount(data.get("amount", ""), number_form(reader_locale()))
    preview = route_preview.preview_draft_route(
        current_actor(), kind, member_id=member, amount=amount
    )
    return jsonify(
        {
            "routable": preview.route.routable,
            "steps": [
                {
                    "state": step.state,
                    "routable": step.routable,
                    "approvers": [preview.members.get(m, f"#{m}") for m in step.eligible],
                    "gaps": [gap_message(gap.reason, preview.gap_names(gap)) for gap in step.gaps],
                    # Exclusive approval: who is left out of this step, and why.
                    "excluded": [
                        exclusion_text(e, preview.graph, preview.members, str(get_locale()))
                        for e in step.excluded
                    ],
                }
                for step in preview.route.steps
            ],
        }
    )


@bp.get("/pickers")
@admin_required
def pickers(kind: str) -> ResponseReturnValue:
    """Who a grant may name: active members and seats, and the organization's roles."""
    found = pages.grant_pickers(current_actor())
    return jsonify(
        {
            "grantee_kinds": list(GranteeKind.ALL),
            "members": [{"id": c.id, "label": c.label} for c in found.members],
            "positions": [{"id": c.id, "label": c.label} for c in found.positions],
            "roles": list(Role.ALL),
        }
    )
