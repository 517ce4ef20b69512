"""The inbox page: my open tasks, most urgent first, with bulk approve and reject.

A plain form (works without JavaScript): a checkbox per row (``reference|state``), one
shared comment, and two buttons. htmx refreshes only the table body every 30 s, asking
for the rows with the currently checked values so they come back still checked; the
comment lives outside the body and is never touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from flask import Blueprint, abort, g, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from markupsafe import Markup

from portal.core.clock import clock
from portal.documents import bulk as bulk_decisions
from portal.documents.queries.next_steps import NextStep
from portal.documents.views.waiting import decided_phrase
from portal.domain.authority import Via
from portal.domain.diagram import state_tone
from portal.domain.editing import is_draft
from portal.domain.errors import DomainError
from portal.domain.time_zones import local_day
from portal.domain.verdicts import APPROVE, REJECT
from portal.inbox import queries
from portal.inbox.queries import InboxRow
from portal.inbox.row_html import row_html
from portal.web.errors import status_for
from portal.web.i18n import (
    format_day,
    format_elapsed,
    format_locale,
    format_moment,
    format_money,
    reader_time_zone,
)
from portal.web.messages import message_for
from portal.web.request_input import current_request_id, multiline
from portal.web.tenancy import current_actor

bp = Blueprint("inbox", __name__, url_prefix="/o/<org>/inbox")

ACTIONS = {APPROVE: _l("Approve"), REJECT: _l("Reject")}
MAX_COMMENT = 4000
# The refresh may name at most this many checked rows (a bulk takes at most 100).
MAX_KEPT = 2 * bulk_decisions.BULK_LIMIT


@dataclass(frozen=True, slots=True)
class Line:
    """One row as the page shows it."""

    value: str  # the checkbox value: "reference|state"
    html: Markup


@dataclass(frozen=True)
class Outcome:
    reference: str
    url: str
    ok: bool
    # The new state's label when it moved, else the refusal in the reader's language.
    text: str


def _document_url(reference: str) -> str:
    return url_for("documents.detail", reference=reference)


def _locale() -> str:
    return str(get_locale())


def _due(row: InboxRow, now: datetime, zone_name: str) -> str | None:
    if row.due_at is None:
        return None
    if row.is_overdue(now):
        return "overdue"
    # "Today" is the reader's day, not UTC's.
    if local_day(row.due_at, zone_name) == local_day(now, zone_name):
        return "today"
    return "later"


_PLAIN_SEGMENT = re.compile(r"[A-Za-z0-9_.~-]+")


def _path_segment(reference: str) -> str:
    # References are generated (EXP-2026-00042): quoting is only for a surprise.
    return reference if _PLAIN_SEGMENT.fullmatch(reference) else quote(reference, safe="")


def _lines(page: queries.InboxPage, checked: set[str]) -> list[Line]:
    """The rows, formatted here rather than by template filters (``row_html``): the
    locale is resolved once, and the words every row repeats are translated once per
    page."""
    now, locale, formats, reader_zone = clock.now(), _locale(), format_locale(), reader_time_zone()
    select, overdue, today = _("Select %(reference)s"), _("overdue"), _("due today")
    due_words = {"overdue": overdue, "today": today}
    # One url_for for the page, not one per row: building a URL costs more than the row.
    marker = "__reference__"
    link = _document_url(marker)
    # Rows share a few (graph, state) pairs: each label is looked up once.
    labels: dict[tuple[int, str], str] = {}
    tones: dict[tuple[int, str], str] = {}
    lines = []
    for row in page.rows:
        label_key = (id(row.graph), row.state)
        state_label = labels.get(label_key)
        if state_label is None:
            state_label = labels[label_key] = row.graph.state_label(row.state, locale)
            found = row.graph.state(row.state)
            tones[label_key] = state_tone(found.role if found else "")
        value = f"{row.reference}|{row.state}"
        due = _due(row, now, reader_zone)
        if due is None or row.due_at is None:
            due_text = due_title = ""
        elif due == "later":
            due_text, due_title = format_day(row.due_at, formats, reader_zone), ""
        else:
            due_text, due_title = due_words[due], format_moment(row.due_at, formats, reader_zone)
        lines.append(
            Line(
                value,
                row_html(
                    reference=row.reference,
                    value=value,
                    select=select % {"reference": row.reference},
                    url=link.replace(marker, _path_segment(row.reference)),
                    title=row.title,
                    requester=row.requester_name,
                    amount=format_money(row.amount, row.currency, formats),
                    state=state_label,
                    tone=tones[label_key],
                    age=format_elapsed(now - row.state_entered_at, formats),
                    due=due,
                    due_text=due_text,
                    due_title=due_title,
                    checked=value in checked,
                    via=_via_mark(row),
                    via_text=_via_text(row),
                ),
            )
        )
    return lines


def _via_text(row: InboxRow) -> str:
    """ "on behalf of Daniel Tan" for a task of someone the reader covers; "escalated to
    you from Nurul Huda" when a deadline (or a vacant seat) brought the task to the
    reader, "handed over by Nurul Huda" when its holder handed it to the reader,
    "escalated to Zainal Abidin" when a deadline brought someone in above them; ""
    otherwise."""
    if row.on_behalf_name is not None:
        return _("on behalf of %(name)s", name=row.on_behalf_name)
    if row.via == Via.ESCALATION:
        if row.from_name:
            return _("escalated to you from %(name)s", name=row.from_name)
        return _("escalated to you")
    if row.via == Via.REASSIGNMENT:
        if row.from_name:
            return _("reassigned to you from %(name)s", name=row.from_name)
        return _("reassigned to you")
    if row.via == Via.HANDOVER:
        if row.from_name:
            return _("handed over by %(name)s", name=row.from_name)
        return _("handed over to you")
    if row.escalated_to:
        return _("escalated to %(names)s", names=_(", ").join(row.escalated_to))
    return ""


def _via_mark(row: InboxRow) -> str:
    if row.on_behalf_of is not None:
        return Via.DELEGATION
    return "escalated_away" if row.escalated_to and not row.from_name else row.via


# The inbox's filter while the reader covers for someone: every row, their own, or one
# delegator's (``show`` is "", "mine" or the delegator's member id).
MINE = "mine"
# Up to nine digits: always a storable id (a longer one names nobody anyway).
_MEMBER_ID = re.compile(r"[0-9]{1,9}")


def _only(actor_member: int, show: str) -> int | None:
    """Whose rows ``show`` asks for: None for all of them (anything unrecognised)."""
    if show == MINE:
        return actor_member
    if _MEMBER_ID.fullmatch(show):
        return int(show)
    return None


def _shown() -> str:
    """The filter as asked for, bounded: "", "mine" or ASCII digits."""
    show = request.values.get("show", "")[:16]
    return show if show == MINE or _MEMBER_ID.fullmatch(show) else ""


@dataclass(frozen=True)
class StepLine:
    """One of the member's own documents that waits for them, as the inbox says it:
    "Revise EXP-2026-00001 — Rejected by Nurul Huda: receipt missing"."""

    reference: str
    url: str
    # What to do, in the reader's language: the flow's own label for the action.
    action: str
    title: str
    amount: str
    # What put it here ("Rejected by Nurul Huda"), and the comment that came with it.
    what: str | None
    comment: str


def _step_lines(steps: tuple[NextStep, ...]) -> list[StepLine]:
    locale = _locale()
    lines = []
    for step in steps:
        graph = step.graph
        if graph.state(step.state) is not None and is_draft(graph, step.state):
            # Back in its draft after a rejection: editing comes before resubmitting.
            action = _("Revise and resubmit")
            url = url_for("documents.edit", reference=step.reference)
        else:
            action = step.actions[0].labels.text(locale) if step.actions else step.state
            url = _document_url(step.reference)
        what = None
        if step.decided_to is not None:
            what = decided_phrase(graph.state_label(step.decided_to, locale), step.decided_by)
        lines.append(
            StepLine(
                step.reference,
                url,
                action,
                step.title,
                format_money(step.amount, step.currency),
                what,
                step.comment,
            )
        )
    return lines


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
):
    actor = current_actor()
    show = _shown()
    page = queries.open_tasks(actor, only=_only(actor.member_id, show))
    # The nav's badges come with the page: no transactions of their own.
    g.inbox_count, g.unread_count = page.total + len(page.steps), page.unread
    checked = checked or set()
    lines = _lines(page, checked)
    shown = {line.value for line in lines}
    return (
        render_template(
            "inbox/index.html",
            lines=lines,
            more=page.more,
            # Checked rows that have left the inbox since: still shown, still checked.
            gone=sorted(v for v in checked if v not in shown),
            comment=comment,
            outcomes=outcomes or [],
            refusal=refusal,
            actions=ACTIONS,
            steps=_step_lines(page.steps),
            show=show,
            covering=page.covering,
            banner=page.banner,
        ),
        status,
    )


@bp.get("/")
@login_required
def index() -> ResponseReturnValue:
    return _page()


@bp.get("/rows")
@login_required
def rows() -> ResponseReturnValue:
    """The table body alone, for the 30-second refresh: rows named in ``items`` (the
    boxes checked on the page) come back checked."""
    actor = current_actor()
    checked = set(request.args.getlist("items")[:MAX_KEPT])
    show = _shown()
    page = queries.open_tasks(actor, only=_only(actor.member_id, show))
    lines = _lines(page, checked)
    shown = {line.value for line in lines}
    return render_template(
        "inbox/_rows.html",
        lines=lines,
        more=page.more,
        gone=sorted(v for v in checked if v not in shown),
        oob=True,
        # Only whether there are any: the empty table then says it holds no decisions.
        steps=page.steps,
        show=show,
    )


@bp.post("/bulk")
@login_required
@multiline("comment")
def bulk() -> ResponseReturnValue:
    """Approve or reject the checked documents with the one comment: an outcome per
    document, never all-or-nothing (``documents.bulk``)."""
    actor = current_actor()
    verdict = request.form.get("transition", "")
    if verdict not in ACTIONS:
        abort(400)
    values = request.form.getlist("items")
    comment = request.form.get("comment", "")[:MAX_COMMENT]
    items = _parse_items(values)
    try:
        outcomes = bulk_decisions.bulk_decide(
            actor,
            items,
            verdict,
            comment=comment,
            request_id=current_request_id(),
        )
    except DomainError as refused:
        return _page(
            checked=set(values[:MAX_KEPT]),
            comment=comment,
            refusal=message_for(refused),
            status=status_for(refused),
        )
    locale = _locale()
    merged = [
        Outcome(
            o.reference,
            _document_url(o.reference),
            o.ok,
            o.document.graph.state_label(o.document.state, locale)
            if o.document is not None
            else message_for(o.refusal or DomainError("not_assigned")),
        )
        for o in outcomes
    ]
    failed = {f"{r}|{s}" for (r, s), o in zip(items, merged, strict=True) if not o.ok}
    # Refused rows stay checked (and the comment stays when one was missing), so that
    # fixing and retrying is one click.
    return _page(
        checked=failed,
        comment=comment if failed else "",
        outcomes=merged,
    )
