"""What the document page says about whom it waits for, beyond the approvers' names:
"Waiting for you: Revise" when the document waits for its requester and the reader is
that requester (``domain.next_steps``, the rule the inbox's next steps follow), and
why an open step reached someone only past a gap ("reached Aisha Rahman because the
seat of Head of Sales is vacant")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask_babel import gettext as _

from portal.documents.queries.detail import DocumentDetail
from portal.documents.queries.handovers import OpenTask
from portal.domain.authority import Via
from portal.domain.editing import is_draft
from portal.domain.next_steps import requester_next_steps
from portal.web.i18n import format_elapsed
from portal.web.messages import gap_message


@dataclass(frozen=True)
class WaitingForYou:
    # "Waiting for you: Revise", in the reader's language.
    text: str
    # What put it here ("Rejected by Nurul Huda") and the comment that came with it.
    why: str | None
    comment: str
    # Back in its draft: the page offers editing first.
    draft: bool


def waiting_for_you(
    page: DocumentDetail, member_id: int | None, locale: str
) -> WaitingForYou | None:
    document = page.document
    if member_id is None or member_id != document.requester_id:
        return None
    graph = document.graph
    steps = requester_next_steps(graph, document.state, submitted_before=page.chain.decisions > 0)
    if not steps:
        return None
    draft = is_draft(graph, document.state)
    if draft:
        text = _("Waiting for you: revise and resubmit")
    else:
        actions = " / ".join(t.labels.text(locale) for t in steps)
        text = _("Waiting for you: %(actions)s", actions=actions)
    # What put it here: the latest decision someone else took (not their own "revise").
    last = next((h for h in reversed(page.history) if h.actor_id != member_id), None)
    why, comment = None, ""
    if last is not None:
        why = decided_phrase(graph.state_label(last.to_state, locale), last.actor_name)
        comment = last.comment
    return WaitingForYou(text, why, comment, draft)


def decided_phrase(state: str, name: str | None) -> str:
    """What put a document where it waits: "Rejected by Nurul Huda", or the system's move."""
    if name:
        return _("%(state)s by %(name)s", state=state, name=name)
    return _("%(state)s automatically", state=state)


def escalation_lines(page: DocumentDetail) -> list[str]:
    """One sentence per member the open step reached only past a gap. A task a passing
    deadline escalated says so in the open tasks' list (``task_lines``) instead."""
    handed = {t.member_id for t in page.tasks if t.from_name}
    lines = []
    for e in page.escalations:
        if e.member_id in handed:
            continue
        if e.reason == "vacant" and "position" in e.names:
            lines.append(
                _(
                    "It reached %(name)s because the seat of %(position)s is vacant.",
                    name=e.name,
                    position=e.names["position"],
                )
            )
        elif e.reason:
            lines.append(
                _(
                    "It reached %(name)s by escalation: %(reason)s",
                    name=e.name,
                    reason=gap_message(e.reason, e.names),
                )
            )
        else:
            lines.append(_("It reached %(name)s by escalation.", name=e.name))
    return lines


@dataclass(frozen=True)
class TaskLine:
    """An open task as the document page lists it: "Zainal Abidin · due in 2 days ·
    escalated to you from Nurul Huda"."""

    holder: str
    due_at: datetime | None
    # "overdue by 3 hours", "due in 2 days" (None: no deadline).
    due_text: str | None
    overdue: bool
    # How it came to its holder, or whom it was escalated to ("" when neither).
    note: str


def task_lines(page: DocumentDetail, member_id: int | None, now: datetime) -> list[TaskLine]:
    """The document's open tasks that have a due date or a deadline's story, in words,
    the reader's own named "You"."""
    lines = []
    for task in page.tasks:
        mine = task.member_id == member_id
        due_text, overdue = None, False
        if task.due_at is not None:
            overdue = task.due_at < now
            if overdue:
                due_text = _("overdue by %(time)s", time=format_elapsed(now - task.due_at))
            else:
                due_text = _("due in %(time)s", time=format_elapsed(task.due_at - now))
        note = _task_note(task, mine)
        if due_text is None and not note:
            continue  # the "waiting for" line names its holder already
        lines.append(
            TaskLine(
                # i18n: in the list of a document's open tasks, the reader's own.
                holder=_("You") if mine else task.name,
                due_at=task.due_at,
                due_text=due_text,
                overdue=overdue,
                note=note,
            )
        )
    return lines


def _task_note(task: OpenTask, mine: bool) -> str:
    if task.from_name and task.via == Via.REASSIGNMENT:
        if mine:
            return _("reassigned to you from %(name)s", name=task.from_name)
        return _("reassigned from %(name)s", name=task.from_name)
    if task.from_name and task.via == Via.ESCALATION:
        if mine:
            return _("escalated to you from %(name)s", name=task.from_name)
        return _("escalated from %(name)s", name=task.from_name)
    if task.from_name and task.via == Via.HANDOVER:
        if mine:
            return _("handed over to you by %(name)s", name=task.from_name)
        return _("handed over by %(name)s", name=task.from_name)
    if task.escalated_to:
        return _("escalated to %(names)s", names=_(", ").join(task.escalated_to))
    return ""
