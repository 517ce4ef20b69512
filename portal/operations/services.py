"""What an organization's admins may do about its background half: send a dead letter
on its way again."""

from __future__ import annotations

from portal.core import outbox
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_admin


def retry_dead_letter(actor: Actor, outbox_id: int) -> None:
    """Give a dead letter of the actor's organization a new round of attempts, due now;
    its last error stays on it until the next attempt. Another organization's id, or
    none, is not found; a delivered event, or one still being tried, is refused
    (``Conflict``). The outbox is nudged once the retry is committed."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        outbox.retry_dead_in(uow.session, outbox_id)
        uow.after_commit(lambda: outbox.nudge(actor.org_id))
