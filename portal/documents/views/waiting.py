"""What the document page says about whom it waits for, beyond the approvers' names:
"Waiting for you: Revise" when the document waits for its requester and the reader is
that requester (``domain.next_steps``, the rule the inbox's next steps follow), and
why an open step reached someone only past a gap ("reached Aisha Rahman because the
seat of Head of Sales is vacant")."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _

from portal.documents.queries.detail import DocumentDetail
from portal.domain.editing import is_draft
from portal.domain.next_steps import requester_next_steps
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
    """One sentence per member the open step reached only past a gap."""
    lines = []
    for e in page.escalations:
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
