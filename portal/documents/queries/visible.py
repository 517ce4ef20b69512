"""Which documents a member may see, as one SQL predicate: the twin of
``access.load_visible`` for anything that lists, counts or exports documents beyond the
member's own (DESIGN §4 "Visibility").

A document is visible to admins and auditors; to its requester; to whoever holds or held
a task on it; to the delegate of someone who holds or held one, while that cover is
active on the organization's day and reaches the document's kind; and to whoever decided
on it (a delegate keeps what they decided after the cover ends). A discarded draft is
listed nowhere. ``tests/delegations/test_visibility.py`` holds the two to the same answer.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import ColumnElement, and_, exists, false, or_

from portal.core.db import table_of
from portal.delegations.queries import DELEGATION_TABLE as _DEL
from portal.delegations.queries import active_clause, kind_clause
from portal.documents.models import Decision, Document, Task
from portal.domain.actor import Actor

_DOC = table_of(Document)
_TASK = table_of(Task)
_DECISION = table_of(Decision)


def visible_clause(actor: Actor, today: date) -> ColumnElement[bool]:
    """The documents of the actor's organization the actor may see on the organization's
    ``today`` (``clock.today_in(actor.time_zone)``), discarded drafts left out: a
    predicate on ``document`` for the caller's statement."""
    live = and_(_DOC.c.org_id == actor.org_id, _DOC.c.discarded_at.is_(None))
    if actor.is_admin or actor.is_auditor:
        return live
    member = actor.member_id
    if member is None:  # pragma: no cover - a member always acts as one
        return false()
    on_this = and_(_TASK.c.org_id == _DOC.c.org_id, _TASK.c.document_id == _DOC.c.id)
    held = exists().where(on_this, _TASK.c.assignee_id == member)
    held_by_whom_i_cover = exists().where(
        on_this,
        _DEL.c.org_id == _DOC.c.org_id,
        _DEL.c.delegator_id == _TASK.c.assignee_id,
        _DEL.c.delegate_id == member,
        active_clause(today),
        kind_clause(_DOC.c.kind),
    )
    decided = exists().where(
        _DECISION.c.org_id == _DOC.c.org_id,
        _DECISION.c.document_id == _DOC.c.id,
        _DECISION.c.actor_id == member,
    )
    return and_(live, or_(_DOC.c.requester_id == member, held, held_by_whom_i_cover, decided))
