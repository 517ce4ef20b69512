"""Handing an open task to a colleague, through the service, in the demo organization.

The handover moves the work, never authority: the receiver must be able to decide the
step on authority of their own — the grants' band, or an active cover from someone in
it — when the task is handed over, and again when they decide (their task, ``via``
handover, authorises nothing by itself). The holder's task is cancelled, the receiver's
opened, the history gets a hash-chained row, and both are told. Every refusal writes
nothing. Globex is there and sees none of it.

Sales claims: Nurul (Sales Manager) reviews Siti's; Zainal approves; the admins (Aisha,
Grace, Daniel, Mei Ling) commit and pay. Hannah (HR) is made an admin after a claim
reached its commit step: in the band, with no task of her own there.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from portal.accounts.services import people as accounts
from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from portal.documents.handover import hand_over
from portal.documents.models import Decision, Document, Task, TaskStatus
from portal.documents.queries import detail as document_queries
from portal.domain.actor import Role
from portal.domain.engine import TransitionRefused
from portal.domain.errors import DomainError, NotFound
from portal.domain.handover import HANDOVER_GATE
from portal.web.errors import status_for
from tests.delegations.covers import move, revoke_cover, set_cover, start_today, submitted_claim

REASON = "On leave from Monday; Hannah knows this supplier"


def _approved(people):
    """Siti's claim, reviewed and approved: waiting for an admin to commit it."""
    doc = move(people("nurul"), submitted_claim(people("siti")), "review")
    return move(people("zainal"), doc, "approve")


def _make_admin(people, name: str) -> None:
    member = people(name).member_id
    accounts.set_member_roles(people("aisha"), member, [Role.ADMIN])


def _tasks(org_id: int, doc) -> list[Task]:
    with unit_of_work(org_id) as uow:
        return list(
            uow.session.scalars(select(Task).where(Task.document_id == doc.id).order_by(Task.id))
        )


def _open(org_id: int, doc) -> dict[int, Task]:
    return {t.assignee_id: t for t in _tasks(org_id, doc) if t.status == TaskStatus.OPEN}


def _decisions(org_id: int, doc) -> list[Decision]:
    with unit_of_work(org_id) as uow:
        return list(
            uow.session.scalars(
                select(Decision).where(Decision.document_id == doc.id).order_by(Decision.seq)
            )
        )


def _events(org_id: int, doc, topic: str) -> list[dict]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.scalars(select(OutboxEvent).where(OutboxEvent.topic == topic))
        return [e.payload for e in rows if e.payload.get("document_id") == doc.id]


def _written(org_id: int, doc) -> tuple:
    """Everything a handover could write about ``doc``."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        row = s.scalars(select(Document).where(Document.id == doc.id)).one()
        tasks = s.execute(
            select(Task.id, Task.assignee_id, Task.status, Task.via).where(
                Task.document_id == doc.id
            )
        )
        events = s.scalar(select(func.count()).select_from(OutboxEvent))
        return (
            (row.state, row.row_version, row.chain_seq, row.chain_hash),
            sorted(tuple(t) for t in tasks),
            len(_decisions(org_id, doc)),
            events,
        )


def _hand(actor, doc, to: int, reason: str = REASON, seen: str | None = None):
    return hand_over(
        actor, doc.reference, to_member=to, reason=reason, seen_state=seen or doc.state
    )


def _refusal(actor, doc, to: int, reason: str = REASON, seen: str | None = None) -> DomainError:
    before = _written(actor.org_id, doc)
    with pytest.raises(DomainError) as caught:
        _hand(actor, doc, to, reason, seen)
    # Nothing half-written: no task closed or opened, no history row, no notice.
    assert _written(actor.org_id, doc) == before
    return caught.value


# --- the allowed case --------------------------------------------------------------------


def test_a_holder_hands_their_task_to_a_colleague_who_may_decide_it(people, globex):
    grace, org = people("grace"), people("grace").org_id
    doc = _approved(people)
    _make_admin(people, "hannah")
    hannah = people("hannah")
    held = _open(org, doc)[grace.member_id]
    before = _written(org, doc)[0]

    handed = _hand(grace, doc, hannah.member_id)

    assert (handed.receiver_id, handed.receiver_name) == (hannah.member_id, "Hannah Ong")
    tasks = {t.id: t for t in _tasks(org, doc)}
    # The holder's task is cancelled, by them; the receiver's is the same work, moved.
    assert tasks[held.id].status == TaskStatus.CANCELLED
    assert tasks[held.id].completed_by == grace.member_id
    received = tasks[handed.task_id]
    assert (received.assignee_id, received.via, received.status) == (
        hannah.member_id,
        "handover",
        TaskStatus.OPEN,
    )
    assert (received.state, received.transitions, received.band_floor) == (
        held.state,
        held.transitions,
        held.band_floor,
    )
    assert (received.due_at, received.level, received.sweep_at) == (
        held.due_at,
        held.level,
        held.sweep_at,
    )
    # The history's row: the state stays, the holder acted on their own say-so, the
    # receiver is the one it went to, the reason is the comment.
    row = _decisions(org, doc)[-1]
    assert row.seq == handed.decision_seq
    assert (row.gate, row.transition, row.from_state, row.to_state) == (
        HANDOVER_GATE,
        "handover",
        doc.state,
        doc.state,
    )
    assert (row.actor_id, row.authority_member_id, row.via, row.delegation_id) == (
        grace.member_id,
        grace.member_id,
        "reassignment",
        None,
    )
    assert row.eligible == [hannah.member_id]
    assert row.resolution == [
        {"handover": {"from": grace.member_id, "to": hannah.member_id, "task": held.id}}
    ]
    assert row.comment == REASON
    # Chained: the head moved on the document row, and the whole chain verifies. The
    # state and the row version stay: nobody's view of the document is made stale.
    after = _written(org, doc)[0]
    assert after[:2] == before[:2]
    assert after[2:] == (row.seq, row.hash)
    assert document_queries.verify_history(grace, doc.reference).ok
    # Both are told.
    [event] = _events(org, doc, "notify.task_handed_over")
    assert event["members"] == [grace.member_id, hannah.member_id]
    assert (event["reference"], event["state"], event["decision"]) == (
        doc.reference,
        doc.state,
        row.seq,
    )
    assert (event["from_member"], event["to_members"]) == (grace.member_id, [hannah.member_id])
    # Globex sees none of it.
    with pytest.raises(NotFound):
        document_queries.get_document(globex.admin.actor, doc.reference)


def test_the_receiver_decides_on_their_own_authority_and_their_task_is_completed(people):
    grace, org = people("grace"), people("grace").org_id
    doc = _approved(people)
    _make_admin(people, "hannah")
    hannah = people("hannah")
    handed = _hand(grace, doc, hannah.member_id)

    verified = move(hannah, doc, "verify_category")

    row = _decisions(org, doc)[-1]
    assert (row.actor_id, row.authority_member_id, row.via) == (
        hannah.member_id,
        hannah.member_id,
        "grant",
    )
    assert {t.id: t for t in _tasks(org, doc)}[handed.task_id].status == TaskStatus.COMPLETED
    # Handing over decided no step: under exclusive approval Grace may still pay.
    assert grace.member_id in _open(org, verified)
    assert hannah.member_id not in _open(org, verified)
    assert document_queries.verify_history(grace, doc.reference).ok


def test_a_receiver_whose_authority_went_away_is_refused_when_deciding(people):
    grace, org = people("grace"), people("grace").org_id
    doc = _approved(people)
    _make_admin(people, "hannah")
    hannah = people("hannah")
    handed = _hand(grace, doc, hannah.member_id)
    # The chart changes before she decides: she is no longer an admin.
    accounts.set_member_roles(people("aisha"), hannah.member_id, [])

    with pytest.raises(TransitionRefused) as caught:
        move(people("hannah"), doc, "verify_category")
    # Her task, handed to her, carries no authority of its own.
    assert caught.value.code == "not_assigned"
    assert _open(org, doc)[hannah.member_id].id == handed.task_id


def test_a_receiver_who_holds_the_step_already_gets_no_second_task(people):
    grace, daniel, org = people("grace"), people("daniel"), people("grace").org_id
    doc = _approved(people)
    daniels = _open(org, doc)[daniel.member_id]

    handed = _hand(grace, doc, daniel.member_id)

    assert handed.task_id is None
    opened = _open(org, doc)
    assert grace.member_id not in opened
    assert opened[daniel.member_id].id == daniels.id
    assert _decisions(org, doc)[-1].eligible == [daniel.member_id]


# --- eligible by cover ---------------------------------------------------------------------


def test_a_receiver_eligible_only_by_an_active_cover_may_take_it(people):
    today = start_today()
    nurul, jason, org = people("nurul"), people("jason"), people("nurul").org_id
    doc = submitted_claim(people("siti"))
    cover = set_cover(nurul, jason, today, today + timedelta(days=7))

    handed = _hand(nurul, doc, jason.member_id)
    reviewed = move(jason, doc, "review")

    row = _decisions(org, doc)[-1]
    assert (row.actor_id, row.authority_member_id, row.via, row.delegation_id) == (
        jason.member_id,
        nurul.member_id,
        "delegation",
        cover,
    )
    assert {t.id: t for t in _tasks(org, doc)}[handed.task_id].status == TaskStatus.COMPLETED
    assert reviewed.state == "reviewed"
    assert document_queries.verify_history(nurul, doc.reference).ok


def test_a_receiver_whose_cover_was_revoked_is_refused_when_deciding(people):
    today = start_today()
    nurul, jason = people("nurul"), people("jason")
    doc = submitted_claim(people("siti"))
    cover = set_cover(nurul, jason, today, today + timedelta(days=7))
    _hand(nurul, doc, jason.member_id)
    revoke_cover(nurul, cover)

    with pytest.raises(TransitionRefused) as caught:
        move(jason, doc, "review")
    assert caught.value.code == "delegation_not_active"


# --- refusals --------------------------------------------------------------------------------


def test_a_colleague_without_authority_of_their_own_is_refused_and_pointed_to_cover(people):
    nurul, jason = people("nurul"), people("jason")
    doc = submitted_claim(people("siti"))

    refused = _refusal(nurul, doc, jason.member_id)

    assert (refused.code, refused.field) == ("handover_not_eligible", "to_member")
    assert refused.params["name"] == "Jason Wong"
    assert status_for(refused) == 422


def test_only_whoever_holds_an_open_task_may_hand_it_over(people):
    doc = submitted_claim(people("siti"))
    # An admin sees every document, and holds no task on this one; nor does its
    # requester.
    for who in ("aisha", "siti"):
        refused = _refusal(people(who), doc, people("zainal").member_id)
        assert refused.code == "handover_not_holder"
        assert status_for(refused) == 403


def test_a_task_handed_over_cannot_be_handed_over_again_by_its_former_holder(people):
    grace = people("grace")
    doc = _approved(people)
    _hand(grace, doc, people("daniel").member_id)

    assert _refusal(grace, doc, people("meiling").member_id).code == "handover_not_holder"


@pytest.mark.parametrize(
    ("who", "code"),
    [("nurul", "handover_self"), ("siti", "handover_requester")],
)
def test_neither_oneself_nor_the_requester_may_receive_it(people, who, code):
    doc = submitted_claim(people("siti"))

    refused = _refusal(people("nurul"), doc, people(who).member_id)

    assert (refused.code, refused.field) == (code, "to_member")


def test_an_unknown_id_and_another_organizations_member_answer_alike(people, globex):
    nurul = people("nurul")
    doc = submitted_claim(people("siti"))

    unknown = _refusal(nurul, doc, 10**12)
    foreign = _refusal(nurul, doc, globex.admin.member_id)

    # Nothing tells a member id of another organization from one that names nobody.
    assert (unknown.code, unknown.field, unknown.params) == (
        "handover_member_unknown",
        "to_member",
        {},
    )
    assert (foreign.code, foreign.field, foreign.params) == (
        unknown.code,
        unknown.field,
        unknown.params,
    )


def test_a_member_who_is_no_longer_active_cannot_receive_it(people):
    nurul, jason = people("nurul"), people("jason").member_id
    doc = submitted_claim(people("siti"))
    accounts.deactivate_member(people("aisha"), jason)

    refused = _refusal(nurul, doc, jason)

    assert (refused.code, refused.field) == ("handover_member_inactive", "to_member")


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("", "handover_reason_required"),
        ("   ", "handover_reason_required"),
        ("x" * 501, "reason_too_long"),
        ("x" * 100_000, "value_too_long"),
        ("On leave\x00", "control_character"),
        ("On leave\nback Monday", "control_character"),
    ],
)
def test_the_reason_is_required_short_and_one_clean_line(people, reason, code):
    grace = people("grace")
    doc = _approved(people)

    refused = _refusal(grace, doc, people("daniel").member_id, reason)

    assert (refused.code, refused.field) == (code, "reason")


def test_the_reason_is_kept_trimmed_and_may_be_in_any_script(people):
    grace, org = people("grace"), people("grace").org_id
    doc = _approved(people)

    _hand(grace, doc, people("daniel").member_id, "  休假，周一回来  ")

    assert _decisions(org, doc)[-1].comment == "休假，周一回来"


def test_a_stale_page_hands_nothing_over(people):
    grace = people("grace")
    doc = _approved(people)

    refused = _refusal(grace, doc, people("daniel").member_id, seen="submitted")

    assert refused.code == "stale_state"
    assert status_for(refused) == 409


def test_another_organization_cannot_reach_the_document(people, globex):
    doc = _approved(people)

    with pytest.raises(NotFound):
        hand_over(
            globex.admin.actor,
            doc.reference,
            to_member=globex.admin.member_id,
            reason=REASON,
            seen_state=doc.state,
        )
    assert _events(people("grace").org_id, doc, "notify.task_handed_over") == []
