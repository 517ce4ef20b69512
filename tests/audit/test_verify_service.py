"""A pass over every chain of an organization: every document read in batches and each
chain checked, the result stored as the organization's; a decision rewritten by the
database's owner (its comment, its amount) or a last decision deleted is found and
named with its first bad sequence number, the other chains still hold; a chain extended
during the pass is not broken; another organization's broken chain never shows in ours.
Only admins and auditors (and the platform) may run one."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from portal.audit.models import VerificationTrigger
from portal.audit.queries.verification import latest_in
from portal.audit.services import verification
from portal.core.uow import unit_of_work
from portal.documents.queries.chains import check_chains_after, iter_checked_chains
from portal.domain.actor import SystemActor
from portal.domain.errors import NotFound
from tests.audit import chains
from tests.audit.chains import World, claim, walk

COMMENT = "UPDATE decision SET comment = 'Looks wrong' WHERE document_id = :doc AND seq = :seq"
AMOUNT = "UPDATE decision SET amount = amount + 1000 WHERE document_id = :doc AND seq = :seq"
DELETE = "DELETE FROM decision WHERE document_id = :doc AND seq = :seq"

world = chains.world  # the fixture


def _stored(org_id: int) -> list[tuple[Any, ...]]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.execute(
            text(
                "SELECT trigger, member_id, chains, decisions FROM chain_verification"
                " WHERE org_id = :o ORDER BY id"
            ),
            {"o": org_id},
        ).all()
    return [tuple(r) for r in rows]


def test_an_auditor_verifies_every_chain_and_the_pass_is_stored(world: World):
    ravi = world.person("ravi")
    progress: list[tuple[int, int]] = []

    result = verification.verify_organization(
        ravi,
        VerificationTrigger.MANUAL,
        progress=lambda done, total: progress.append((done, total)),
    )

    assert result.ok and result.failures == []
    assert result.chains == world.documents_in(world.acme_id) == 3
    assert result.decisions == world.decisions_in(world.acme_id) == 4
    assert (result.trigger, result.member_id, result.member_name) == (
        "manual",
        ravi.member_id,
        "Ravi Kumar",
    )
    assert progress[0] == (0, 3) and progress[-1] == (3, 3)
    assert _stored(world.acme_id) == [("manual", ravi.member_id, 3, 4)]
    with unit_of_work(world.acme_id) as uow:
        latest = latest_in(uow.session, world.acme_id)
    assert latest is not None and latest.ok and latest.member_name == "Ravi Kumar"
    assert latest.started_at is not None and latest.started_at <= latest.finished_at
    # Globex's chains were not read, and nothing was stored for it.
    assert _stored(world.globex_id) == []


def test_an_admin_and_the_platform_may_verify_too(world: World):
    assert verification.verify_organization(world.person("daniel"), VerificationTrigger.MANUAL).ok
    system = SystemActor(org_id=world.acme_id)
    assert verification.verify_organization(system, VerificationTrigger.CLI).ok
    assert [(t, m) for t, m, *_ in _stored(world.acme_id)] == [
        ("manual", world.person("daniel").member_id),
        ("cli", None),
    ]


def test_a_member_who_does_not_audit_may_not_verify(world: World):
    assert verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL).ok

    for name in ("siti", "nurul"):
        with pytest.raises(NotFound):
            verification.verify_organization(world.person(name), VerificationTrigger.MANUAL)
        with pytest.raises(NotFound):
            verification.request_verification(world.person(name))
    assert len(_stored(world.acme_id)) == 1


def test_a_comment_rewritten_by_the_owner_is_named_with_its_sequence(world: World):
    doc = world.approved
    assert verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL).ok

    assert world.tamper(world.acme_id, COMMENT, doc=doc.id, seq=2) == 1

    result = verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL)
    assert not result.ok
    assert result.failures == [{"reference": doc.reference, "document_id": doc.id, "seq": 2}]
    assert result.chains == 3  # the draft's and the submitted claim's chains still hold


def test_an_amount_rewritten_by_the_owner_is_named(world: World):
    doc = world.submitted
    assert world.tamper(world.acme_id, AMOUNT, doc=doc.id, seq=1) == 1

    result = verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL)

    assert result.failures == [{"reference": doc.reference, "document_id": doc.id, "seq": 1}]


def test_a_deleted_last_decision_is_found(world: World):
    doc = world.approved
    assert world.tamper(world.acme_id, DELETE, doc=doc.id, seq=3) == 1

    result = verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL)

    # The document row still names the third decision as its chain's head.
    assert result.failures == [{"reference": doc.reference, "document_id": doc.id, "seq": 3}]
    assert result.decisions == 3


def test_another_organizations_broken_chain_never_shows_in_ours(world: World):
    with unit_of_work(world.globex_id) as uow:
        theirs = uow.session.execute(
            text(
                "SELECT document_id, reference FROM decision JOIN document d"
                " ON d.id = decision.document_id WHERE decision.org_id = :o ORDER BY d.id LIMIT 1"
            ),
            {"o": world.globex_id},
        ).one()
    assert world.tamper(world.globex_id, COMMENT, doc=theirs.document_id, seq=1) == 1

    ours = verification.verify_organization(world.person("ravi"), VerificationTrigger.MANUAL)
    assert ours.ok and ours.chains == 3

    globex = verification.verify_organization(
        SystemActor(org_id=world.globex_id), VerificationTrigger.CLI
    )
    assert globex.failures == [
        {"reference": theirs.reference, "document_id": theirs.document_id, "seq": 1}
    ]
    assert globex.chains == 2
    with unit_of_work(world.acme_id) as uow:
        latest = latest_in(uow.session, world.acme_id)
    assert latest is not None and latest.ok


def test_small_batches_read_every_chain_once_in_document_order(world: World):
    siti = world.person("siti")

    for n in range(4):
        walk(claim(siti, f"Parking {n}", "12.00"), (siti, "submit"))
    with unit_of_work(world.acme_id) as uow:
        batches = list(iter_checked_chains(uow.session, world.acme_id, size=2))
        first = check_chains_after(uow.session, world.acme_id, 0, 2)
    ids = [c.document_id for batch in batches for c in batch]
    assert [len(b) for b in batches] == [2, 2, 2, 1]
    assert ids == sorted(ids) and len(set(ids)) == 7
    assert [c.document_id for c in first] == ids[:2]
    assert all(c.check.ok for batch in batches for c in batch)

    result = verification.verify_organization(
        world.person("ravi"), VerificationTrigger.MANUAL, batch=2
    )
    assert (result.ok, result.chains, result.decisions) == (True, 7, 8)


def test_a_chain_extended_during_the_pass_is_not_reported_broken(world: World):
    siti, nurul = world.person("siti"), world.person("nurul")
    submitted = world.submitted
    moves = iter([(siti, "submit", world.draft), (nurul, "review", submitted)])

    def between_batches(done: int, total: int) -> None:
        # After each batch a decision is appended to a chain already read, and another
        # to one not yet read.
        step = next(moves, None)
        if step is not None:
            actor, key, doc = step
            walk(doc, (actor, key))

    result = verification.verify_organization(
        world.person("ravi"), VerificationTrigger.MANUAL, progress=between_batches, batch=1
    )

    assert result.ok and result.chains == 3


@pytest.mark.parametrize(
    ("now", "zone", "slot"),
    [
        # 02:30 in Kuala Lumpur (UTC+8): tonight's slot, 18:00 UTC the day before.
        ("2026-12-02T18:30:00+00:00", "Asia/Kuala_Lumpur", "2026-12-02T18:00:00+00:00"),
        # 01:59 there: the slot is still the previous night's.
        ("2026-12-02T17:59:00+00:00", "Asia/Kuala_Lumpur", "2026-12-01T18:00:00+00:00"),
        ("2026-12-02T02:00:00+00:00", "UTC", "2026-12-02T02:00:00+00:00"),
        ("2026-12-02T23:00:00+00:00", "UTC", "2026-12-02T02:00:00+00:00"),
        # An unknown zone (a row written before validation) is UTC.
        ("2026-12-02T01:00:00+00:00", "Nowhere/Else", "2026-12-01T02:00:00+00:00"),
    ],
)
def test_the_nightly_slot_is_the_latest_two_oclock_in_the_organizations_zone(now, zone, slot):
    assert verification.nightly_slot(datetime.fromisoformat(now), zone) == datetime.fromisoformat(
        slot
    ).astimezone(UTC)


def test_the_nightly_pass_runs_once_per_slot(world: World):
    slot = verification.nightly_slot(datetime.now(UTC), "Asia/Kuala_Lumpur")

    first = verification.verify_nightly(world.acme_id, slot)
    again = verification.verify_nightly(world.acme_id, slot)

    assert first is not None and first.ok and first.trigger == "nightly"
    assert again is None
    assert [t for t, *_ in _stored(world.acme_id)] == ["nightly"]
    assert _stored(world.globex_id) == []
