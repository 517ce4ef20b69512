"""The audit home page, ``/o/<org>/audit/``: the search over every document of the
organization. The whole search lives in the query string (shareable, bookmarkable, the
export links carry it too); each value that cannot be read is named beside its field
and left out, and the rest of the search still runs."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from babel.numbers import format_decimal
from flask import render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import pgettext
from flask_login import login_required
from werkzeug.routing import BuildError

from portal.audit.queries import search as searching
from portal.audit.views import audit_required, bp
from portal.domain.audit_query import DISCARDED, AuditQuery, parse_audit_query
from portal.domain.errors import DomainError
from portal.web.i18n import format_locale
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

# The columns a reader may sort by, as (sort key, heading); the first click on a date or
# an amount shows the newest or largest first.
_NEWEST_FIRST = frozenset({"created", "decided", "amount"})


def _columns() -> list[tuple[str, str]]:
    return [
        ("reference", _("Reference")),
        ("kind", pgettext("document", "Kind")),
        ("title", pgettext("document", "Title")),
        ("requester", _("Requester")),
        ("amount", _("Amount")),
        ("state", _("State")),
        ("created", _("Created")),
        ("decided", _("Last decision")),
    ]


def _url(endpoint: str, args: dict[str, str]) -> str:
    values: dict[str, Any] = dict(args)  # query-string values, no url_for options
    return url_for(endpoint, **values)


def search_url(query: AuditQuery) -> str:
    return _url("audit.search", query.to_args())


def document_url(reference: str) -> str:
    """The document's audit timeline."""
    try:
        return url_for("audit.document", reference=reference)
    except BuildError:  # pragma: no cover - the timeline's page is registered with the blueprint
        return f"/o/{current_actor().org_slug}/audit/documents/{reference}"


def _stalls_url() -> str:
    try:
        return url_for("audit.stalls")
    except BuildError:
        return f"/o/{current_actor().org_slug}/audit/stalls"


def _headers(query: AuditQuery) -> list[dict[str, Any]]:
    """Each column's heading with the link that sorts by it (the current one turns
    around) and its ``aria-sort``."""
    out = []
    for key, label in _columns():
        current = query.sort_key == key
        if current:
            sort = key if query.descending else f"-{key}"
            aria = "descending" if query.descending else "ascending"
        else:
            sort = f"-{key}" if key in _NEWEST_FIRST else key
            aria = None
        out.append(
            {"key": key, "label": label, "url": search_url(query.sorted_by(sort)), "aria": aria}
        )
    return out


def _refusals(refusals: list[DomainError]) -> tuple[dict[str, list[str]], list[str]]:
    """Each refusal beside its field, and all of them for the summary above the form."""
    by_field: dict[str, list[str]] = defaultdict(list)
    summary = []
    for error in refusals:
        text = message_for(error)
        by_field[error.field or ""].append(text)
        summary.append(text)
    return dict(by_field), summary


@bp.get("/")
@login_required
@audit_required
def search() -> ResponseReturnValue:
    actor = current_actor()
    query, refusals = parse_audit_query(request.args)
    found = searching.search(actor, query)
    errors, summary = _refusals(refusals)
    member_ids = {m.id for m in found.members}
    return render_template(
        "audit/search.html",
        found=found,
        query=query,
        args=query.to_args(),
        errors=errors,
        error_summary=summary,
        # An id in the link that names nobody here (another organization's member, say)
        # is kept in the form as "no member of this organization": it matched nothing.
        foreign={
            name: getattr(query, name)
            for name in ("requester_id", "approver_id", "delegate_id")
            if getattr(query, name) is not None and getattr(query, name) not in member_ids
        },
        headers=_headers(query),
        search_url=search_url,
        document_url=document_url,
        stalls_url=_stalls_url(),
        export_csv=_url("audit.export_csv", query.filter_args()),
        export_json=_url("audit.export_json", query.filter_args()),
        discarded=DISCARDED,
        verification=found.verification,
        total_text=format_decimal(found.total, locale=format_locale()),
        past_end_message=message_for(
            DomainError("audit_page_past_end", page=query.page, num=found.pages)
        )
        if found.past_end
        else None,
    )
