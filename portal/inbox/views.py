"""The inbox page: my open tasks, most urgent first, with bulk approve and reject.

A plain form (works without JavaScript): a checkbox per row (``reference|state``), one
shared comment, and two buttons. htmx refreshes only the table body every 30 s, asking
for the rows with the currently checked values so they come back still checked; the
comment lives outside the body and is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from flask import Blueprint, abort, g, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from portal.core.clock import clock
from portal.documents import services as documents
from portal.domain.actor import Actor
from portal.domain.errors import DomainError
from portal.inbox import queries
from portal.inbox.queries import InboxRow
from portal.web.errors import status_for
from portal.web.i18n import format_elapsed
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("inbox", __name__, url_prefix="/o/<org>/inbox")

APPROVE = "approve"
REJECT = "reject"
ACTIONS = {APPROVE: _l("Approve"), REJECT: _l("Reject")}
MAX_COMMENT = 4000
# The refresh may name at most this many checked rows (a bulk takes at most 100).
MAX_KEPT = 2 * documents.BULK_LIMIT


@dataclass(frozen=True)
class Line:
    """One row as the page shows it."""

    row: InboxRow
    value: str  # the checkbox value: "reference|state"
    url: str
    state_label: str
    age: str
    # "overdue", "today", "later" or None (no deadline)
    due: str | None
    checked: bool


@dataclass(frozen=True)
class Outcome:
    reference: str
    url: str
    ok: bool
    # The new state's label when it moved, else the refusal in the reader's language.
    text: str


def _document_url(actor: Actor, reference: str) -> str:
    return url_for("documents.detail", reference=reference)


def _locale() -> str:
    return str(get_locale())


def _due(row: InboxRow, now: datetime) -> str | None:
    if row.due_at is None:
        return None
    if row.is_overdue(now):
        return "overdue"
    if row.due_at.date() == now.date():
        return "today"
    return "later"


def _lines(actor: Actor, page: queries.InboxPage, checked: set[str]) -> list[Line]:
    now, locale = clock.now(), _locale()
    # One url_for for the page, not one per row: building a URL costs more than the row.
    marker = "__reference__"
    link = _document_url(actor, marker)
    lines = []
    for row in page.rows:
        value = f"{row.reference}|{row.state}"
        lines.append(
            Line(
                row=row,
                value=value,
                url=link.replace(marker, quote(row.reference, safe="")),
                state_label=row.graph.state_label(row.state, locale),
                age=format_elapsed(now - row.state_entered_at),
                due=_due(row, now),
                checked=value in checked,
            )
        )
    return lines


def _row_texts() -> dict[str, str]:
    """The words every row repeats, translated once per page rather than once per row."""
    return {
        "select": _("Select %(reference)s"),
        "overdue": _("overdue"),
        "today": _("due today"),
    }


def _parse_items(values: list[str]) -> list[tuple[str, str]]:
    items = []
    for value in values:
        reference, _, state = value.partition("|")
        items.append((reference.strip()[:32], state.strip()[:63]))
    return items


def _page(
    *,
    checked: set[str] | None = None,
    comment: str = "",
    outcomes: list[Outcome] | None = None,
    refusal: str | None = None,
    status: int = 200,
):  # type: ignore[no-untyped-def]
    actor = current_actor()
    page = queries.open_tasks(actor)
    g.inbox_count = page.total  # the nav badge: no second count on this page
    checked = checked or set()
    lines = _lines(actor, page, checked)
    shown = {line.value for line in lines}
    return (
        render_template(
            "inbox/index.html",
            lines=lines,
            texts=_row_texts(),
            more=page.more,
            # Checked rows that have left the inbox since: still shown, still checked.
            gone=sorted(v for v in checked if v not in shown),
            comment=comment,
            outcomes=outcomes or [],
            refusal=refusal,
            actions=ACTIONS,
        ),
        status,
    )


@bp.get("/")
@login_required
def index():  # type: ignore[no-untyped-def]
    return _page()


@bp.get("/rows")
@login_required
def rows():  # type: ignore[no-untyped-def]
    """The table body alone, for the 30-second refresh: rows named in ``items`` (the
    boxes checked on the page) come back checked."""
    actor = current_actor()
    checked = set(request.args.getlist("items")[:MAX_KEPT])
    page = queries.open_tasks(actor)
    lines = _lines(actor, page, checked)
    shown = {line.value for line in lines}
    return render_template(
        "inbox/_rows.html",
        lines=lines,
        texts=_row_texts(),
        more=page.more,
        gone=sorted(v for v in checked if v not in shown),
        oob=True,
    )


def _refused(reference: str, error: DomainError) -> tuple[str, bool, str]:
    return (reference, False, message_for(error))


@bp.post("/bulk")
@login_required
def bulk():  # type: ignore[no-untyped-def]
    """Approve or reject the checked documents with the one comment.

    "Approve" is, per document, the first transition other than ``reject`` that the
    member's task authorises (review, approve, verify_category, pay, … by state), so
    the items are grouped by the transition each takes, one ``bulk_transition`` per
    group, and the outcomes merged back in the order the rows were checked."""
    actor = current_actor()
    action = request.form.get("transition", "")
    if action not in ACTIONS:
        abort(400)
    values = request.form.getlist("items")
    comment = request.form.get("comment", "")[:MAX_COMMENT]
    items = _parse_items(values)
    try:
        documents.check_bulk(items)
    except DomainError as refused:
        return _page(
            checked=set(values[:MAX_KEPT]),
            comment=comment,
            refusal=message_for(refused),
            status=status_for(refused),
        )

    # Before deciding: the graphs (for the new states' labels) of the rows on the page.
    before = {row.reference: row for row in queries.open_tasks(actor).rows}
    groups: dict[str, list[int]] = {}
    results: dict[int, tuple[str, bool, str]] = {}
    if action == REJECT:
        groups[REJECT] = list(range(len(items)))
    else:
        authorised = queries.task_transitions(actor, items)
        for index, (reference, _) in enumerate(items):
            key = next((k for k in authorised.get(reference, ()) if k != REJECT), None)
            if key is None:
                results[index] = _refused(reference, DomainError("not_assigned"))
            else:
                groups.setdefault(key, []).append(index)

    locale = _locale()
    request_id = request.headers.get("X-Request-Id")
    for key, indexes in groups.items():
        outcomes = documents.bulk_transition(
            actor, [items[i] for i in indexes], key, comment=comment, request_id=request_id
        )
        for index, outcome in zip(indexes, outcomes, strict=True):
            if outcome.ok:
                row = before.get(outcome.reference)
                state = outcome.state or ""
                label = row.graph.state_label(state, locale) if row is not None else state
                results[index] = (outcome.reference, True, label)
            else:
                assert outcome.refusal is not None
                results[index] = _refused(outcome.reference, outcome.refusal)

    merged = [
        Outcome(reference, _document_url(actor, reference), ok, text)
        for reference, ok, text in (results[i] for i in range(len(items)))
    ]
    failed = {f"{r}|{s}" for (r, s), o in zip(items, merged, strict=True) if not o.ok}
    # Refused rows stay checked (and the comment stays when one was missing), so that
    # fixing and retrying is one click.
    return _page(
        checked=failed,
        comment=comment if failed else "",
        outcomes=merged,
    )
