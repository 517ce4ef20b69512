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

import json
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from types import SimpleNamespace
from typing import Any

from flask import Blueprint, jsonify, request
from flask_babel import get_locale
from flask_babel import gettext as _

from portal.domain import graph as graphs
from portal.domain import graph_json
from portal.domain.actor import Role
from portal.domain.errors import DomainError
from portal.domain.graph import GranteeKind
from portal.domain.graph_diff import Changes
from portal.domain.graph_json import MAX_DOCUMENT_BYTES
from portal.domain.resolution import Gap
from portal.domain.validate import Violation, errors_in
from portal.flows import queries, services, wording
from portal.orgchart import routing
from portal.orgchart import services as orgchart
from portal.web.auth import admin_required
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("flows_api", __name__, url_prefix="/o/<org>/flows/<kind>/api")

# The wrapper {"revision": …, "graph": …} around a graph of at most MAX_DOCUMENT_BYTES.
MAX_BODY_BYTES = MAX_DOCUMENT_BYTES + 1_000


def _violations(violations: list[Violation]) -> list[dict[str, Any]]:
    return [v.to_json(message_for(v)) for v in violations]


def _draft_json(draft: services.DraftView) -> dict[str, Any]:
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
    """The request's JSON object, amounts kept as Decimal; never a 500 on bad bytes."""
    if (request.content_length or 0) > MAX_BODY_BYTES:
        raise graph_json.GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
    raw = request.get_data(cache=False)
    if len(raw) > MAX_BODY_BYTES:
        raise graph_json.GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError):
        raise DomainError("bad_request") from None
    if not isinstance(data, dict):
        raise DomainError("bad_request")
    return data


def _revision(data: dict[str, Any]) -> int:
    revision = data.get("revision")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
        raise DomainError("bad_request")
    return revision


@bp.get("/draft")
@admin_required
def draft(kind: str):  # type: ignore[no-untyped-def]
    return jsonify(_draft_json(services.get_draft(current_actor(), kind)))


@bp.put("/draft")
@admin_required
def save(kind: str):  # type: ignore[no-untyped-def]
    data = _body()
    revision = _revision(data)
    graph = graph_json.from_json(data.get("graph"))
    return jsonify(
        _draft_json(services.save_draft(current_actor(), kind, graph, revision=revision))
    )


@bp.put("/draft/import")
@admin_required
def import_file(kind: str):  # type: ignore[no-untyped-def]
    """A file as exported (its bytes are the body) over the draft at ``?revision=``: read
    by the same loader as the flow page's upload, so a file that is not JSON says the
    line and column, a wrong shape names its path, and either changes nothing."""
    raw_revision = request.args.get("revision", "")
    # ASCII digits only: str.isdigit() also passes "²", which int() refuses.
    if not re.fullmatch(r"[0-9]{1,9}", raw_revision):
        raise DomainError("bad_request")
    if (request.content_length or 0) > MAX_DOCUMENT_BYTES:
        raise graph_json.GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
    raw = request.get_data(cache=False)
    draft = services.import_draft(current_actor(), raw, kind=kind, revision=int(raw_revision))
    return jsonify(_draft_json(draft))


@bp.post("/draft/discard")
@admin_required
def discard(kind: str):  # type: ignore[no-untyped-def]
    services.discard_draft(current_actor(), kind, revision=_revision(_body()))
    return jsonify(_draft_json(services.get_draft(current_actor(), kind)))


@bp.post("/draft/publish")
@admin_required
def publish(kind: str):  # type: ignore[no-untyped-def]
    actor = current_actor()
    try:
        version = services.publish_draft(actor, kind, revision=_revision(_body()))
    except services.FlowInvalid as refused:
        error = {
            "code": refused.code,
            "message": message_for(refused),
            "details": {"violations": _violations(refused.violations)},
        }
        return jsonify(error=error), 422
    return jsonify(
        {
            "version": version.version,
            "digest": version.digest,
            "published_at": version.published_at.isoformat(),
            "draft": _draft_json(services.get_draft(actor, kind)),
        }
    )


@bp.post("/draft/from-version")
@admin_required
def from_version(kind: str):  # type: ignore[no-untyped-def]
    data = _body()
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise DomainError("bad_request")
    draft = services.draft_from_version(current_actor(), kind, version, revision=_revision(data))
    return jsonify(_draft_json(draft))


Graphs = tuple[graphs.Graph | None, ...]


def _first(graphs_seen: Graphs, pick: Callable[[graphs.Graph], Any]) -> Any:
    """What ``pick`` finds in the first graph that has it: the draft names what stays,
    the version before names what goes."""
    for graph in graphs_seen:
        found = pick(graph) if graph is not None else None
        if found is not None:
            return found
    return None


def _labelled(item: Any, key: str, locale: str) -> str:
    text = item.labels.text(locale) if item is not None else ""
    return f"{text} ({key})" if text and text != key else key


def _state_text(key: str, graphs_seen: Graphs, locale: str) -> str:
    state = _first(graphs_seen, lambda g: next((s for s in g.states if s.key == key), None))
    return _labelled(state, key, locale)


def _field_text(key: str, graphs_seen: Graphs, locale: str) -> str:
    found = _first(graphs_seen, lambda g: next((f for f in g.fields if f.key == key), None))
    return _labelled(found, key, locale)


def _transition_text(key: str, graphs_seen: Graphs, locale: str) -> str:
    """ "Approve: Waiting for the manager (manager_review) → Approved (approved)"."""
    found = _first(
        graphs_seen,
        lambda g: next((t for t in g.transitions if f"{t.from_state}.{t.key}" == key), None),
    )
    if found is None:
        return key
    return _(
        "%(action)s: %(source)s → %(target)s",
        action=found.labels.text(locale) or found.key,
        source=_state_text(found.from_state, graphs_seen, locale),
        target=_state_text(found.to_state, graphs_seen, locale),
    )


def _worded(
    changes: Changes,
    text: Callable[[str, Graphs, str], str],
    found: services.DraftChanges,
    locale: str,
) -> dict[str, list[dict[str, str]]]:
    """Each key with its words; what was removed is named from the version before."""
    now, before = (found.after, found.before), (found.before, found.after)
    return {
        "added": [{"key": k, "text": text(k, now, locale)} for k in changes.added],
        "removed": [{"key": k, "text": text(k, before, locale)} for k in changes.removed],
        "changed": [{"key": k, "text": text(k, now, locale)} for k in changes.changed],
    }


def _grants_worded(found: services.DraftChanges, locale: str) -> dict[str, list[dict[str, str]]]:
    def word(grant: graphs.Grant, graphs_seen: Graphs) -> dict[str, str]:
        who = wording.grant_words(grant, found.names)
        if grant.state is None:
            return {"state": "", "text": who}
        where = _state_text(grant.state, graphs_seen, locale)
        return {"state": grant.state, "text": _("%(state)s: %(who)s", state=where, who=who)}

    return {
        "added": [word(g, (found.after, found.before)) for g in found.diff.grants.added],
        "removed": [word(g, (found.before, found.after)) for g in found.diff.grants.removed],
    }


@bp.get("/changes")
@admin_required
def changes(kind: str):  # type: ignore[no-untyped-def]
    """What publishing would change, worded for the reader: labels in their language,
    grants as sentences with the org chart's names and their locale's amounts."""
    found = services.draft_changes(current_actor(), kind)
    locale = str(get_locale())
    change = found.diff
    return jsonify(
        {
            "any": change.any,
            "flow_changed": change.flow_changed,
            "states": _worded(change.states, _state_text, found, locale),
            "transitions": _worded(change.transitions, _transition_text, found, locale),
            "grants": _grants_worded(found, locale),
            "fields": _worded(change.fields, _field_text, found, locale),
        }
    )


@bp.get("/versions")
@admin_required
def versions(kind: str):  # type: ignore[no-untyped-def]
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
def version(kind: str, version: int):  # type: ignore[no-untyped-def]
    view = queries.get_version(current_actor(), kind, version)
    return jsonify({"version": view.version, "graph": graph_json.to_json(view.graph)})


def _gap_message(gap: Gap, preview: routing.RoutePreview) -> str:
    params = routing.preview_gap_params(gap, preview)
    return message_for(SimpleNamespace(code=f"gap_{gap.reason}", params=params))


@bp.post("/route")
@admin_required
def route(kind: str):  # type: ignore[no-untyped-def]
    """Who would approve a member's document of an amount under the saved draft: each
    approval step with its deciders, or what strands it."""
    actor = current_actor()
    data = _body()
    member = data.get("member_id")
    if isinstance(member, bool) or not isinstance(member, int):
        raise DomainError("unknown_requester", field="member_id")
    try:
        amount = Decimal(str(data.get("amount", "")).replace(",", "").strip())
    except InvalidOperation:
        raise DomainError("amount_invalid", field="amount") from None
    preview = routing.preview_route(
        actor,
        kind=kind,
        member_id=member,
        amount=amount,
        graph=services.draft_graph(actor, kind),
    )
    return jsonify(
        {
            "routable": preview.route.routable,
            "steps": [
                {
                    "state": step.state,
                    "routable": step.routable,
                    "approvers": [preview.members.get(m, f"#{m}") for m in step.eligible],
                    "gaps": [_gap_message(gap, preview) for gap in step.gaps],
                }
                for step in preview.route.steps
            ],
        }
    )


@bp.get("/pickers")
@admin_required
def pickers(kind: str):  # type: ignore[no-untyped-def]
    """Who a grant may name: active members and seats, and the organization's roles."""
    actor = current_actor()
    return jsonify(
        {
            "grantee_kinds": list(GranteeKind.ALL),
            "members": [{"id": c.id, "label": c.label} for c in orgchart.member_choices(actor)],
            "positions": [{"id": c.id, "label": c.label} for c in orgchart.position_choices(actor)],
            "roles": list(Role.ALL),
        }
    )
