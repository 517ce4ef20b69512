"""The detail page: the document, only the transitions this member may take now (one
shared comment field; the button decides which transition it rides), who else it is
waiting for, and the history with the approver set each decision considered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import login_required

from portal.core.cache import LruCache
from portal.core.clock import clock
from portal.documents.queries.detail import DocumentDetail, document_detail
from portal.documents.transitions import decide_on_page
from portal.documents.views import bp
from portal.documents.views.timeline import cover_days, decision_words, timeline_rows
from portal.documents.views.waiting import escalation_lines, task_lines, waiting_for_you
from portal.domain.diagram import HALO, Diagram, state_tone
from portal.domain.diagram import draw as draw_diagram
from portal.domain.errors import DomainError
from portal.domain.graph import Graph
from portal.web.errors import status_for
from portal.web.i18n import format_day
from portal.web.messages import gap_message, message_for
from portal.web.request_input import current_request_id, multiline
from portal.web.tenancy import current_actor

if TYPE_CHECKING:
    from portal.documents.views.handing_over import HandoverAttempt


def _page(
    page: DocumentDetail,
    status: int = 200,
    *,
    swapped: bool = False,
    message: tuple[str, str] | None = None,
    comment: str = "",
    comment_error: str | None = None,
    handover: HandoverAttempt | None = None,
) -> ResponseReturnValue:
    """The detail page, or with ``swapped`` only the region a decision changes (for
    htmx). ``message`` is (category, text) shown at the top of that region; a refused
    decision keeps the comment that was typed."""
    actor = current_actor()
    document, actions, waiting = page.document, page.actions, page.waiting
    graph = document.graph
    state = graph.state(document.state)

    def label(key: str) -> str:
        return graph.transition_label(document.state, key, actor.locale)

    allowed = [(a, label(a.key)) for a in actions if a.allowed]
    # The main button moves the document forward; rejecting, withdrawing or disputing
    # never sits where a hurried click lands.
    forward = [a.key for a, _text in allowed if graph.moves_forward(a.to_state)]
    # Others' actions grouped by who holds them: "Approve / Reject — waiting for: Nurul".
    by_holders: dict[tuple[str, ...], list[str]] = {}
    for a in actions:
        if not a.allowed and waiting.get(a.key):
            by_holders.setdefault(tuple(waiting[a.key]), []).append(label(a.key))
    return (
        render_template(
            "documents/_swapped.html" if swapped else "documents/detail.html",
            swapped=swapped,
            message=message,
            comment=comment,
            comment_error=comment_error,
            document=document,
            state=state,
            allowed=allowed,
            diagram=_diagram(graph, document.state, actor.locale),
            diagram_halo=HALO,
            tone=state_tone(state.role if state else ""),
            primary=forward[0] if forward else None,
            comment_required_for=[text for a, text in allowed if a.comment_required],
            pending=[(" / ".join(texts), names) for names, texts in by_holders.items()],
            history=page.history,
            chain=page.chain,
            may_edit=page.may_edit,
            waiting_for_you=waiting_for_you(page, actor.member_id, actor.locale),
            escalated=escalation_lines(page),
            open_tasks=task_lines(page, actor.member_id, clock.now()),
            may_discard=page.may_discard,
            timeline=timeline_rows(page.timeline, graph, actor.locale),
            # In the language the page's labels are in (Flask-Babel's, the ``label`` filter's).
            said=decision_words(page.history, graph, str(get_locale())),
            colleagues=page.colleagues,
            handover=handover,
            cover_days=cover_days(page.history),
            acting_for=[
                _(
                    "You act on behalf of %(name)s (cover until %(day)s)",
                    name=a.delegator_name,
                    day=format_day(a.valid_to),
                )
                for a in page.acting_for
            ],
        ),
        status,
    )


# Drawn diagrams by (graph, current state, locale). A pinned version's graph never changes
# and the version cache hands out one object per version, so each is drawn once, not on
# every page load. The key is the graph's identity; an entry keeps its graph alive, so no
# other graph can come to have that id while the entry stands.
_drawn: LruCache[tuple[int, str, str], tuple[Graph, Diagram]] = LruCache(256)


def _diagram(graph: Graph, current: str, locale: str) -> Diagram:
    key = (id(graph), current, locale)
    found = _drawn.get(key)
    if found is not None and found[0] is graph:
        return found[1]
    diagram = draw_diagram(graph, current, locale)
    _drawn.put(key, (graph, diagram))
    return diagram


def _gap_refusal(graph: Graph, refused: DomainError) -> str:
    """'Nobody could decide it at Reviewed: Siti has no primary position…' in words (the
    refusal carries the names its sentence needs, ``orgchart.queries.gap_names``)."""
    return _(
        "This cannot go ahead: nobody could decide it at “%(step)s”. %(reason)s Ask an admin to fix the org chart.",
        step=graph.state_label(str(refused.params.get("state", "")), current_actor().locale),
        reason=gap_message(str(refused.params.get("reason")), refused.params),
    )


@bp.get("/<reference>")
@login_required
def detail(reference: str) -> ResponseReturnValue:
    return _page(document_detail(current_actor(), reference))


@bp.post("/<reference>/transition")
@login_required
@multiline("comment")
def transition(reference: str) -> ResponseReturnValue:
    """The pressed button names the transition, a hidden field the state the page
    showed, and the shared comment rides along. With htmx the answer is the changed
    region, swapped in place; without, a redirect to the page (or, when refused, the
    page with the reason and the comment as typed)."""
    swapped = request.headers.get("HX-Request") == "true"
    key = request.form.get("transition", "")
    seen_state = request.form.get("seen_state", "")
    comment = request.form.get("comment", "")[:4000]
    decided = decide_on_page(
        current_actor(),
        reference,
        key,
        seen_state=seen_state,
        comment=comment,
        request_id=current_request_id(),
        page_after=swapped,  # without htmx the answer is a redirect to the page
    )
    refused, detail, moved = decided.refusal, decided.detail, decided.moved
    if refused is not None:
        assert detail is not None  # a refusal always comes with the page
        if refused.code == "stale_state":
            message = (
                "warning",
                _(
                    "This document has moved on: someone acted on it before you. Here it is as it stands now."
                ),
            )
        elif refused.code == "route_has_gap":
            message = ("error", _gap_refusal(detail.document.graph, refused))
        else:
            message = ("error", message_for(refused))
        return _page(
            detail,
            status_for(refused),
            swapped=swapped,
            message=message,
            comment=comment,
            comment_error=message[1] if refused.code == "comment_required" else None,
        )
    assert moved is not None  # not refused, so it moved
    document = moved.document
    done = _(
        "Done: the document is now “%(state)s”.",
        state=document.graph.state_label(document.state, current_actor().locale),
    )
    if swapped:
        assert detail is not None  # asked for with htmx
        return _page(detail, swapped=True, message=("success", done))
    flash(done, "success")
    return redirect(url_for("documents.detail", reference=reference))
