"""Setting and revoking cover (``delegations.services``): a member lends their own
authority for whole days of the organization's zone; an admin may set it for a member
who is away. Each refusal names its code and its field, and writes nothing. Globex is
there too, with members of its own, and stays invisible."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import func, select

from portal.core.clock import clock
from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from portal.delegations import services
from portal.delegations.models import Delegation
from portal.delegations.queries import cover_banner_in
from portal.domain.actor import Role
from portal.domain.delegation import CoverRequest, CoverStatus
from portal.domain.errors import Conflict, DomainError, Forbidden, NotFound

ZONE = "Asia/Kuala_Lumpur"
# 20:00 in UTC on 7 December is 04:00 on 8 December in Kuala Lumpur: the
# organization's day is the 8th, though UTC's is still the 7th.
NOW = datetime(2026, 12, 7, 20, 0, tzinfo=UTC)
TODAY = date(2026, 12, 8)
DAY = timedelta(days=1)


@pytest.fixture
def acme(make_org, make_member, globex):
    clock.freeze(NOW)
    org = make_org("acme-cover", "Acme Cover", time_zone=ZONE)
    return {
        "org": org,
        "admin": make_member(org, "Aisha Admin", roles=(Role.ADMIN,)),
        "daniel": make_member(org, "Daniel Tan"),
        "mei": make_member(org, "Mei Ling Chen"),
        "ravi": make_member(org, "Ravi Kumar"),
        "globex": globex,
        "gus": globex.admin,
    }


def _ask(delegate: int, **changes) -> CoverRequest:
    asked = {
        "delegator": 0,
        "delegate": delegate,
        "kind": None,
        "valid_from": TODAY,
        "valid_to": TODAY + 11 * DAY,
        "reason": "Annual leave",
    }
    return CoverRequest(**(asked | changes))


def _rows(org_id: int) -> tuple[int, int]:
    """How many covers and outbox events the organization has."""
    with unit_of_work(org_id) as uow:
        s = uow.session
        covers = s.scalar(select(func.count()).select_from(Delegation))
        events = s.scalar(select(func.count()).select_from(OutboxEvent))
        return int(covers or 0), int(events or 0)


def _events(org_id: int, topic: str) -> list[dict]:
    with unit_of_work(org_id) as uow:
        return [
            e.payload
            for e in uow.session.scalars(
                select(OutboxEvent).where(OutboxEvent.topic == topic).order_by(OutboxEvent.id)
            )
        ]


def _refused(acme, actor, request: CoverRequest, *, for_absent: bool = False) -> DomainError:
    before = _rows(acme["org"].id)
    with pytest.raises(DomainError) as refused:
        if for_absent:
            services.set_cover_for(actor, request)
        else:
            services.set_cover(actor, request)
    assert _rows(acme["org"].id) == before  # nothing half-written
    return refused.value


def test_a_member_lends_their_authority_from_the_organizations_today(acme):
    daniel, mei = acme["daniel"], acme["mei"]
    cover = services.set_cover(daniel.actor, _ask(mei.member_id, kind="expense_claim"))

    assert (cover.delegator_id, cover.delegate_id) == (daniel.member_id, mei.member_id)
    assert (cover.delegator_name, cover.delegate_name) == ("Daniel Tan", "Mei Ling Chen")
    assert (cover.valid_from, cover.valid_to) == (TODAY, TODAY + 11 * DAY)
    assert cover.kind == "expense_claim" and cover.reason == "Annual leave"
    assert cover.created_by == daniel.member_id and cover.revoked_at is None
    [told] = _events(acme["org"].id, "notify.cover_set")
    assert told["members"] == [mei.member_id]
    assert told["delegation_id"] == cover.id


def test_a_member_lends_only_their_own_authority(acme):
    daniel, mei, ravi = acme["daniel"], acme["mei"], acme["ravi"]
    # Whatever delegator the request names, the cover is the actor's.
    cover = services.set_cover(ravi.actor, _ask(mei.member_id, delegator=daniel.member_id))
    assert cover.delegator_id == ravi.member_id


def test_the_reason_is_trimmed_and_normalised(acme):
    cover = services.set_cover(
        acme["daniel"].actor, _ask(acme["mei"].member_id, reason="  Cafe\u0301 visit  ")
    )
    assert cover.reason == "Café visit"


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"valid_from": TODAY - DAY}, "delegation_backdated", "valid_from"),
        ({"valid_to": TODAY - DAY}, "delegation_window_invalid", "valid_to"),
        ({"valid_to": TODAY + 400 * DAY}, "delegation_too_long", "valid_to"),
        (
            {"valid_from": TODAY + 400 * DAY, "valid_to": TODAY + 401 * DAY},
            "delegation_too_far_ahead",
            "valid_from",
        ),
        ({"kind": "timesheet"}, "delegation_unknown_kind", "kind"),
        ({"reason": "   "}, "reason_required", "reason"),
        ({"reason": "x" * 501}, "reason_too_long", "reason"),
        ({"reason": "leave\x00"}, "control_character", "reason"),
        ({"reason": "two\nlines"}, "control_character", "reason"),
    ],
)
def test_each_rule_refuses_with_its_code_and_field(acme, changes, code, field):
    daniel, mei = acme["daniel"], acme["mei"]
    # Allowed first: the same cover without the change passes.
    assert services.set_cover(daniel.actor, _ask(mei.member_id)).id
    refusal = _refused(acme, daniel.actor, _ask(mei.member_id, **changes))
    assert (refusal.code, refusal.field) == (code, field)


def test_a_cover_to_oneself_is_refused(acme):
    daniel = acme["daniel"]
    refusal = _refused(acme, daniel.actor, _ask(daniel.member_id))
    assert (refusal.code, refusal.field) == ("delegation_self", "delegate")


def test_a_member_who_left_cannot_cover(acme):
    from portal.accounts import services as accounts

    daniel, ravi = acme["daniel"], acme["ravi"]
    assert services.set_cover(daniel.actor, _ask(ravi.member_id)).id
    accounts.deactivate_member(acme["admin"].actor, ravi.member_id)
    refusal = _refused(acme, daniel.actor, _ask(ravi.member_id))
    assert (refusal.code, refusal.field) == ("delegate_inactive", "delegate")


@pytest.mark.parametrize("who", ["globex", "unknown"])
def test_another_organizations_member_answers_like_nobody(acme, who):
    daniel = acme["daniel"]
    member_id = acme["gus"].member_id if who == "globex" else 2**62
    refusal = _refused(acme, daniel.actor, _ask(member_id))
    assert (refusal.code, refusal.field) == ("delegate_unknown", "delegate")
    assert refusal.params == {}  # nothing about whoever the id names
    assert _rows(acme["globex"].org.id)[0] == 0


def test_the_last_day_may_be_the_first(acme):
    cover = services.set_cover(acme["daniel"].actor, _ask(acme["mei"].member_id, valid_to=TODAY))
    assert cover.valid_from == cover.valid_to == TODAY


# --- an admin sets cover for an absent member ---------------------------------------------


def test_an_admin_sets_cover_for_an_absent_member_recorded_as_theirs(acme):
    admin, daniel, mei = acme["admin"], acme["daniel"], acme["mei"]
    cover = services.set_cover_for(
        admin.actor, _ask(mei.member_id, delegator=daniel.member_id, reason="Sick leave")
    )
    assert (cover.delegator_id, cover.delegate_id) == (daniel.member_id, mei.member_id)
    assert cover.created_by == admin.member_id and cover.created_by_name == "Aisha Admin"
    [told] = _events(acme["org"].id, "notify.cover_set")
    assert sorted(told["members"]) == sorted([mei.member_id, daniel.member_id])


def test_a_member_who_is_not_an_admin_cannot_set_cover_for_another(acme):
    daniel, mei, ravi = acme["daniel"], acme["mei"], acme["ravi"]
    before = _rows(acme["org"].id)
    with pytest.raises(Forbidden):
        services.set_cover_for(ravi.actor, _ask(mei.member_id, delegator=daniel.member_id))
    assert _rows(acme["org"].id) == before


def test_an_admin_cannot_set_cover_for_another_organizations_member(acme):
    admin, mei, gus = acme["admin"], acme["mei"], acme["gus"]
    assert services.set_cover_for(
        admin.actor, _ask(mei.member_id, delegator=acme["daniel"].member_id)
    )
    refusal = _refused(
        acme, admin.actor, _ask(mei.member_id, delegator=gus.member_id), for_absent=True
    )
    assert (refusal.code, refusal.field) == ("delegator_unknown", "delegator")


# --- revoking ------------------------------------------------------------------------------


def test_the_delegator_revokes_their_cover_and_the_delegate_is_told(acme):
    daniel, mei = acme["daniel"], acme["mei"]
    cover = services.set_cover(daniel.actor, _ask(mei.member_id))
    clock.freeze(NOW + timedelta(hours=3))
    revoked = services.revoke_cover(daniel.actor, cover.id)
    assert revoked.revoked_at == NOW + timedelta(hours=3)
    assert revoked.revoked_by_name == "Daniel Tan"
    [told] = _events(acme["org"].id, "notify.cover_revoked")
    assert told["members"] == [mei.member_id] and told["delegation_id"] == cover.id
    # Never deleted: still listed, as revoked.
    [line] = services.covers_page(daniel.actor).lent
    assert line.status == CoverStatus.REVOKED and not line.revocable


def test_an_admin_revokes_anyones_cover_and_both_are_told(acme):
    admin, daniel, mei = acme["admin"], acme["daniel"], acme["mei"]
    cover = services.set_cover(daniel.actor, _ask(mei.member_id))
    revoked = services.revoke_cover(admin.actor, cover.id)
    assert revoked.revoked_by_name == "Aisha Admin"
    [told] = _events(acme["org"].id, "notify.cover_revoked")
    assert sorted(told["members"]) == sorted([mei.member_id, daniel.member_id])


def test_someone_elses_cover_is_not_found(acme):
    daniel, mei, ravi = acme["daniel"], acme["mei"], acme["ravi"]
    cover = services.set_cover(daniel.actor, _ask(mei.member_id))
    # Not even the delegate revokes it, nor learns more than that it is not there.
    for stranger in (ravi, mei):
        with pytest.raises(NotFound):
            services.revoke_cover(stranger.actor, cover.id)
        with pytest.raises(NotFound):
            services.revocation(stranger.actor, cover.id)
    with pytest.raises(NotFound):
        services.revoke_cover(acme["gus"].actor, cover.id)  # globex's admin
    with pytest.raises(NotFound):
        services.revoke_cover(daniel.actor, 2**62)
    assert services.covers_page(daniel.actor).lent[0].row.revoked_at is None


def test_a_cover_cannot_be_revoked_twice_nor_once_it_ended(acme):
    daniel, mei = acme["daniel"], acme["mei"]
    cover = services.set_cover(daniel.actor, _ask(mei.member_id))
    services.revoke_cover(daniel.actor, cover.id)
    with pytest.raises(Conflict) as twice:
        services.revoke_cover(daniel.actor, cover.id)
    assert twice.value.code == "delegation_over"
    assert len(_events(acme["org"].id, "notify.cover_revoked")) == 1

    short = services.set_cover(daniel.actor, _ask(mei.member_id, valid_to=TODAY))
    clock.freeze(NOW + 2 * DAY)
    with pytest.raises(Conflict) as ended:
        services.revoke_cover(daniel.actor, short.id)
    assert ended.value.code == "delegation_over"


# --- what the pages read ---------------------------------------------------------------


def test_my_page_lists_what_i_lend_and_hold_and_offers_everyone_else(acme):
    daniel, mei, ravi, admin = acme["daniel"], acme["mei"], acme["ravi"], acme["admin"]
    lent = services.set_cover(daniel.actor, _ask(mei.member_id))
    held = services.set_cover_for(
        admin.actor, _ask(daniel.member_id, delegator=ravi.member_id, valid_from=TODAY + 3 * DAY)
    )
    page = services.covers_page(daniel.actor)
    assert page.today == TODAY and page.time_zone == ZONE
    assert [(x.row.id, x.status, x.revocable) for x in page.lent] == [
        (lent.id, CoverStatus.ACTIVE, True)
    ]
    assert [(x.row.id, x.status, x.revocable) for x in page.held] == [
        (held.id, CoverStatus.UPCOMING, False)
    ]
    assert page.held[0].row.created_by_name == "Aisha Admin"
    names = [m.name for m in page.members]
    assert "Daniel Tan" not in names and "Mei Ling Chen" in names and "Gus Globex" not in names
    assert {k.kind for k in page.kinds} >= {"expense_claim", "purchase_request", "leave_request"}


def test_every_active_and_upcoming_cover_is_listed_for_admins_only(acme, make_member):
    daniel, mei, ravi, admin = acme["daniel"], acme["mei"], acme["ravi"], acme["admin"]
    active = services.set_cover(daniel.actor, _ask(mei.member_id))
    upcoming = services.set_cover(ravi.actor, _ask(mei.member_id, valid_from=TODAY + 5 * DAY))
    revoked = services.set_cover(mei.actor, _ask(ravi.member_id))
    services.revoke_cover(mei.actor, revoked.id)
    ended = services.set_cover(ravi.actor, _ask(daniel.member_id, valid_to=TODAY))
    gus, gina = acme["gus"], make_member(acme["globex"].org, "Gina Globex")
    theirs = services.set_cover(gus.actor, _ask(gina.member_id))

    clock.freeze(NOW + DAY)
    listed = [line.row.id for line in services.all_covers(admin.actor).covers]
    assert sorted(listed) == sorted([active.id, upcoming.id])
    assert ended.id not in listed
    with pytest.raises(Forbidden):
        services.all_covers(daniel.actor)
    # Globex's admin sees globex's cover only.
    assert [line.row.id for line in services.all_covers(gus.actor).covers] == [theirs.id]


def test_the_banner_says_who_covers_me_and_whom_i_cover_today(acme):
    daniel, mei, ravi = acme["daniel"], acme["mei"], acme["ravi"]
    services.set_cover(daniel.actor, _ask(mei.member_id))
    services.set_cover(ravi.actor, _ask(daniel.member_id, valid_from=TODAY + DAY))
    with unit_of_work(acme["org"].id) as uow:
        conn = uow.session.connection()
        mine = cover_banner_in(conn, acme["org"].id, daniel.member_id, TODAY)
        theirs = cover_banner_in(conn, acme["org"].id, mei.member_id, TODAY)
        tomorrow = cover_banner_in(conn, acme["org"].id, daniel.member_id, TODAY + DAY)
        nobody = cover_banner_in(conn, acme["org"].id, ravi.member_id, TODAY)
    assert [(b.name, b.valid_to) for b in mine.covered_by] == [("Mei Ling Chen", TODAY + 11 * DAY)]
    assert mine.covering == ()
    assert [b.name for b in theirs.covering] == ["Daniel Tan"] and theirs.covered_by == ()
    assert [b.name for b in tomorrow.covering] == ["Ravi Kumar"]
    assert not nobody
