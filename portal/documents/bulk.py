"""Deciding many documents at once: one verdict, one comment, an outcome per document.

Each document runs the whole single-document pipeline (``transition_document``) in its
own transaction, so a refusal disturbs no other document and a replayed request meets
``stale_state`` rather than deciding anything twice. Never all-or-nothing: the caller
gets one outcome per item, in the order given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import bindparam, case, select

from portal.core.clock import clock
from portal.core.db import table_of
from portal.core.uow import unit_of_work_for
from portal.documents.access import DocumentView
from portal.documents.models import Document, Task, TaskStatus
from portal.documents.queries.detail import get_document
from portal.documents.queries.tasks import covered_by
from portal.documents.transitions import transition_document
from portal.domain.actor import Actor
from portal.domain.errors import DomainError
from portal.domain.verdicts import transition_for

BULK_LIMIT = 100

_DOC = table_of(Document)
_TASK = table_of(Task)
# The transitions the member's task on each named document authorises — an open task
# first, else the latest closed one (the document moved on since the page was drawn).
# Under cover, the tasks of whoever the member covers are asked for too (their rows are
# in the member's inbox), the member's own first.
_TASKS_ON = (
    select(_DOC.c.reference, _TASK.c.state, _TASK.c.transitions)
    .join_from(_TASK, _DOC, (_DOC.c.org_id == _TASK.c.org_id) & (_DOC.c.id == _TASK.c.document_id))
    .where(
        _TASK.c.org_id == bindparam("org"),
        _DOC.c.org_id == bindparam("org"),
        _TASK.c.assignee_id.in_(bindparam("members", expanding=True)),
        _DOC.c.reference.in_(bindparam("references", expanding=True)),
    )
    .order_by(
        case((_TASK.c.status == TaskStatus.OPEN, 0), else_=1),
        case((_TASK.c.assignee_id == bindparam("member"), 0), else_=1),
        _TASK.c.id.desc(),
    )
)


@dataclass(frozen=True)
class BulkOutcome:
    reference: str
    ok: bool
    # The document afterwards, when it moved (its graph names the new state).
    document: DocumentView | None = None
    refusal: DomainError | None = None

    @property
    def state(self) -> str | None:
        return self.document.state if self.document is not None else None


def check_bulk(items: list[tuple[str, str]]) -> None:
    """A bulk request's whole-request refusals: empty, over the limit, or naming one
    document twice. (A page that splits a selection checks the whole of it first.)"""
    if not items:
        raise DomainError("bulk_empty")
    if len(items) > BULK_LIMIT:
        raise DomainError("bulk_too_large", limit=BULK_LIMIT, num=len(items))
    references = [reference for reference, _ in items]
    repeated = sorted({r for r in references if references.count(r) > 1})
    if repeated:
        raise DomainError("bulk_duplicates", references=", ".join(repeated[:5]))


def _take(
    actor: Actor,
    reference: str,
    seen_state: str,
    transition: str | None,
    comment: str,
    rid: str | None,
) -> BulkOutcome:
    try:
        if transition is None:
            # Nothing to approve with: say so only about a document the actor may see.
            get_document(actor, reference)
            raise DomainError("not_assigned")
        moved = transition_document(
            actor, reference, transition, seen_state=seen_state, comment=comment, request_id=rid
        )
    except DomainError as refused:
        return BulkOutcome(reference, False, refusal=refused)
    return BulkOutcome(reference, True, document=moved.document)


def bulk_transition(
    actor: Actor,
    items: list[tuple[str, str]],
    transition: str,
    *,
    comment: str = "",
    request_id: str | None = None,
) -> list[BulkOutcome]:
    """Take ``transition`` on each (reference, state the client saw)."""
    check_bulk(items)
    return _each(
        actor, items, dict.fromkeys((r for r, _ in items), transition), comment, request_id
    )


def bulk_decide(
    actor: Actor,
    items: list[tuple[str, str]],
    verdict: str,
    *,
    comment: str = "",
    request_id: str | None = None,
) -> list[BulkOutcome]:
    """Approve or reject each (reference, state the client saw): per document, the
    transition the verdict stands for (``domain.verdicts``) given what the member's
    task on it authorises in that state."""
    check_bulk(items)
    authorised = task_transitions(actor, items)
    chosen = {r: transition_for(verdict, authorised.get(r, ())) for r, _ in items}
    return _each(actor, items, chosen, comment, request_id)


def _each(
    actor: Actor,
    items: list[tuple[str, str]],
    transitions: dict[str, str | None],
    comment: str,
    request_id: str | None,
) -> list[BulkOutcome]:
    return [
        _take(actor, reference, seen, transitions[reference], comment, request_id)
        for reference, seen in items
    ]


def task_transitions(actor: Actor, items: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """For each (reference, state the page showed): the transitions the member's task (or
    the task of someone they cover) on that document in that state authorises — or authorised, if the document has moved
    on since, so that a bulk decision meets the service's ``stale_state`` rather than
    guessing. References with no such task are absent."""
    wanted = {reference[:32]: state for reference, state in items}
    if not wanted:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    with unit_of_work_for(actor) as uow:
        conn = uow.session.connection()
        # Which transition a verdict stands for only: the engine checks each decision.
        lent = covered_by(conn, actor.org_id, actor.member_id, clock.today_in(actor.time_zone))
        for reference, state, keys in conn.execute(
            _TASKS_ON,
            {
                "org": actor.org_id,
                "member": actor.member_id,
                "members": [actor.member_id, *lent],
                "references": sorted(wanted),
            },
        ):
            if wanted.get(reference) == state and reference not in found:
                found[reference] = tuple(keys)
    return found
