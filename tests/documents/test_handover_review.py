"""Review findings on handing a task over, each shown by a test.

A handover moves the work, never authority, and the receiver's own authority is checked
as it will stand once the task has moved: the holder's task is gone by then, so what
that task lent the receiver through a cover from the holder cannot be what makes them
eligible. Otherwise the receiver takes a task they can never decide, and nobody else
holds it any more.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from portal.core.clock import clock
from portal.core.uow import unit_of_work
from portal.documents.models import Task, TaskStatus
from tests.delegations.covers import move, set_cover, start_today, submitted_claim
from tests.documents.test_handover import _hand, _open, _refusal


def _escalated_to(org_id: int, member_id: int, doc) -> int:
    """An open task on ``doc``'s step for a member outside its band, as the deadline
    sweep opens one when it escalates (``via`` escalation: authority of its own)."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        model = s.scalars(
            select(Task).where(Task.document_id == doc.id, Task.status == TaskStatus.OPEN)
        ).first()
        assert model is not None
        task = Task(
            org_id=model.org_id,
            document_id=doc.id,
            state=model.state,
            assignee_id=member_id,
            via="escalation",
            transitions=list(model.transitions),
            band_floor=model.band_floor,
            due_at=model.due_at,
            status=TaskStatus.OPEN,
            created_at=clock.now(),
            level=1,
        )
        s.add(task)
        s.flush()
        return task.id


def test_an_escalated_holder_can_hand_it_to_someone_who_may_decide_it(people):
    # Allowed first: Hannah, escalated to, hands it to Nurul, who reviews on her own
    # authority.
    org = people("nurul").org_id
    hannah, nurul = people("hannah"), people("nurul")
    doc = submitted_claim(people("siti"))
    _escalated_to(org, hannah.member_id, doc)

    _hand(hannah, doc, nurul.member_id)

    assert move(nurul, doc, "review").state == "reviewed"


def test_a_cover_from_the_holder_lends_no_task_the_handover_takes_away(people):
    # Hannah holds the review only by escalation (she is not in its band) and covers
    # herself with Jason; handing the task to Jason would leave him a task his cover
    # can no longer authorise (her task is cancelled by the handover), and Hannah none.
    org = people("nurul").org_id
    today = start_today()
    hannah, jason = people("hannah"), people("jason")
    doc = submitted_claim(people("siti"))
    _escalated_to(org, hannah.member_id, doc)
    set_cover(hannah, jason, today, today + timedelta(days=7))

    refused = _refusal(hannah, doc, jason.member_id)

    assert (refused.code, refused.field) == ("handover_not_eligible", "to_member")
    # The work stays with her, and she may still decide it.
    assert hannah.member_id in _open(org, doc)
    assert move(hannah, doc, "review").state == "reviewed"
