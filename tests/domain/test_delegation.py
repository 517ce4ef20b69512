"""The rules of cover (``domain.delegation``) and how the authority check applies them
(``domain.authority``): pure, over a small chart."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from portal.domain.authority import Principal, Via, authorize
from portal.domain.delegation import (
    MAX_REASON,
    Cover,
    CoverRequest,
    CoverStatus,
    check_cover,
    revoke_refusal,
    status_of,
)
from portal.domain.errors import DomainError
from portal.domain.exclusive import EXCLUSIVE_APPROVAL
from tests.domain.test_engine import (
    ADMIN,
    APPROVE_PURCHASE,
    CLAIM,
    PURCHASE,
    chart,
    doc,
    exit_of,
    refusal,
)
from tests.domain.test_resolution import CEO, HEAD, LONER
from tests.domain.test_routing import LEAD

TODAY = date(2026, 12, 7)
KINDS = ("expense_claim", "purchase_request")


def cover(**changes: object) -> CoverRequest:
    request = CoverRequest(
        delegator=LEAD,
        delegate=LONER,
        kind=None,
        valid_from=TODAY,
        valid_to=TODAY + timedelta(days=11),
        reason="Annual leave",
    )
    return replace(request, **changes)  # type: ignore[arg-type]


def checked(request: CoverRequest, **kw: object) -> CoverRequest:
    options: dict[str, object] = {"today": TODAY, "delegate_active": True, "kinds": KINDS}
    options.update(kw)
    return check_cover(request, **options)  # type: ignore[arg-type]


def refused_code(request: CoverRequest, **kw: object) -> tuple[str, str | None]:
    with pytest.raises(DomainError) as caught:
        checked(request, **kw)
    return caught.value.code, caught.value.field


# --- setting cover --------------------------------------------------------------------------


def test_a_cover_from_today_for_twelve_days_is_accepted_with_its_reason_trimmed():
    accepted = checked(cover(reason="  Annual leave  ", kind="expense_claim"))
    assert accepted.reason == "Annual leave"
    assert (accepted.valid_from, accepted.valid_to) == (TODAY, date(2026, 12, 18))


def test_a_one_day_cover_is_a_window_of_one_day():
    assert checked(cover(valid_to=TODAY)).valid_to == TODAY


@pytest.mark.parametrize(
    ("changes", "options", "code", "field"),
    [
        ({"delegate": LEAD}, {}, "delegation_self", "delegate"),
        ({}, {"delegate_active": False}, "delegate_inactive", "delegate"),
        ({}, {"delegator_active": False}, "delegator_inactive", "delegator"),
        ({"kind": "leave_of_absence"}, {}, "delegation_unknown_kind", "kind"),
        ({"valid_from": TODAY - timedelta(days=1)}, {}, "delegation_backdated", "valid_from"),
        ({"valid_from": TODAY + timedelta(days=367)}, {}, "delegation_too_far_ahead", "valid_from"),
        ({"valid_to": TODAY - timedelta(days=1)}, {}, "delegation_window_invalid", "valid_to"),
        ({"valid_to": TODAY + timedelta(days=366)}, {}, "delegation_too_long", "valid_to"),
        ({"reason": "   "}, {}, "reason_required", "reason"),
        ({"reason": "x" * (MAX_REASON + 1)}, {}, "reason_too_long", "reason"),
        ({"reason": "x" * 100_000}, {}, "value_too_long", "reason"),
        ({"reason": "leave\x00"}, {}, "control_character", "reason"),
    ],
)
def test_each_refusal_names_its_field(changes, options, code, field):
    assert checked(cover()).delegate == LONER
    assert refused_code(cover(**changes), **options) == (code, field)


def test_the_longest_cover_is_a_year_of_days_both_included():
    assert checked(cover(valid_to=TODAY + timedelta(days=365))).valid_to == date(2027, 12, 7)


# --- where a cover stands -------------------------------------------------------------------


def test_a_cover_is_active_from_its_first_day_to_its_last_both_included():
    first, last = date(2026, 12, 8), date(2026, 12, 19)
    assert status_of(first, last, None, today=date(2026, 12, 7)) == CoverStatus.UPCOMING
    assert status_of(first, last, None, today=first) == CoverStatus.ACTIVE
    assert status_of(first, last, None, today=last) == CoverStatus.ACTIVE
    assert status_of(first, last, None, today=date(2026, 12, 20)) == CoverStatus.ENDED
    revoked = datetime(2026, 12, 10, 9, tzinfo=UTC)
    assert status_of(first, last, revoked, today=date(2026, 12, 10)) == CoverStatus.REVOKED


def test_the_delegator_or_an_admin_revokes_a_cover_that_is_not_over():
    active = CoverStatus.ACTIVE
    kw = {"delegator": LEAD, "status": active}
    assert revoke_refusal(actor=LEAD, actor_is_admin=False, **kw) is None  # type: ignore[arg-type]
    assert revoke_refusal(actor=ADMIN, actor_is_admin=True, **kw) is None  # type: ignore[arg-type]
    assert revoke_refusal(actor=LONER, actor_is_admin=False, **kw) == "not_found"  # type: ignore[arg-type]
    over = {**kw, "status": CoverStatus.ENDED}
    assert revoke_refusal(actor=LEAD, actor_is_admin=False, **over) == "delegation_over"  # type: ignore[arg-type]


# --- authority under cover --------------------------------------------------------------------
# PURCHASE's "approve" at a small amount is decided by STAFF's superior, LEAD.

COVER_ID = 77


def delegate(
    *covers: Cover, member: int = LONER, chained: frozenset[int] = frozenset()
) -> Principal:
    return Principal(member, frozenset(), "OPS", covers=covers, chained=chained)


def active(delegator: int = LEAD, **kw: object) -> Cover:
    return Cover(COVER_ID, delegator, True, **kw)  # type: ignore[arg-type]


def test_a_delegate_decides_on_the_delegators_band_recorded_as_both():
    document = doc(PURCHASE, "submitted")
    authority = authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(active()), chart())
    assert (authority.via, authority.authority_member, authority.delegation_id) == (
        Via.DELEGATION,
        LEAD,
        COVER_ID,
    )
    assert authority.eligible == (LEAD,)


def test_without_a_cover_the_same_member_is_not_assigned():
    document = doc(PURCHASE, "submitted")
    assert authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(active()), chart())
    assert (
        refusal(lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(), chart())).code
        == "not_assigned"
    )


def test_a_lapsed_cover_says_so():
    document = doc(PURCHASE, "submitted")
    assert authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(active()), chart())
    lapsed = Cover(COVER_ID, LEAD, False)
    refused = refusal(
        lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(lapsed), chart())
    )
    assert refused.code == "delegation_not_active"


def test_an_approver_in_their_own_right_decides_on_their_own_authority():
    # HEAD covers LEAD, but is HEAD's own band the winning one? At LARGE amounts it is.
    from tests.domain.test_engine import LARGE

    document = doc(PURCHASE, "submitted", amount=LARGE)
    authority = authorize(
        PURCHASE, APPROVE_PURCHASE, document, delegate(active(), member=HEAD), chart()
    )
    assert (authority.via, authority.authority_member, authority.delegation_id) == (
        Via.GRANT,
        HEAD,
        None,
    )


def test_the_delegators_own_open_task_is_lent_too_but_a_handed_over_one_is_not():
    document = doc(PURCHASE, "submitted")
    # CEO holds an escalated task; LONER covers CEO.
    escalated = active(CEO, tasks={"approve": Via.ESCALATION})
    authority = authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(escalated), chart())
    assert (authority.via, authority.authority_member) == (Via.DELEGATION, CEO)
    handed = active(CEO, tasks={"approve": Via.HANDOVER})
    refused = refusal(
        lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(handed), chart())
    )
    assert refused.code == "not_assigned"


def test_a_handed_over_task_lends_its_holder_nothing():
    document = doc(PURCHASE, "submitted")
    own = authorize(
        PURCHASE,
        APPROVE_PURCHASE,
        document,
        delegate(),
        chart(),
        task_transitions={"approve": Via.REASSIGNMENT},
    )
    assert own.via == Via.REASSIGNMENT
    refused = refusal(
        lambda: authorize(
            PURCHASE,
            APPROVE_PURCHASE,
            document,
            delegate(),
            chart(),
            task_transitions={"approve": Via.HANDOVER},
        )
    )
    assert refused.code == "not_assigned"


def test_a_delegate_never_acts_on_the_delegators_own_document():
    # HEAD's own purchase is decided by HEAD's superior, CEO; LONER covers CEO.
    document = doc(PURCHASE, "submitted", requester=HEAD)
    assert authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(active(CEO)), chart())
    theirs = doc(PURCHASE, "submitted", requester=HEAD)
    refused = refusal(
        lambda: authorize(
            PURCHASE,
            APPROVE_PURCHASE,
            theirs,
            delegate(active(HEAD, tasks={"approve": "grant"})),
            chart(),
        )
    )
    assert refused.code == "delegation_own_document"


def test_a_delegate_never_acts_on_their_own_document():
    document = doc(PURCHASE, "submitted", requester=LONER)
    refused = refusal(
        lambda: authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(active()), chart())
    )
    assert refused.code == "self_approval"


def test_borrowed_authority_is_never_lent_on():
    document = doc(PURCHASE, "submitted")
    # LEAD -> CEO (active) and CEO -> LONER: LONER gets nothing of LEAD's.
    assert authorize(PURCHASE, APPROVE_PURCHASE, document, delegate(active()), chart())
    refused = refusal(
        lambda: authorize(
            PURCHASE,
            APPROVE_PURCHASE,
            document,
            delegate(active(CEO), chained=frozenset({LEAD})),
            chart(),
        )
    )
    assert refused.code == "delegation_chain"


def test_exclusive_approval_applies_to_the_delegate_and_the_delegator():
    # The claim's review is decided by STAFF's superior, LEAD (exclusive approval on).
    review = exit_of(CLAIM, "pending_review", "review")
    document = doc(CLAIM, "pending_review")
    assert authorize(CLAIM, review, document, delegate(active()), chart()).via == Via.DELEGATION
    for spent in (LONER, LEAD):
        decided = replace(document, decided={spent: frozenset({"approved"})})
        refused = refusal(
            lambda: authorize(CLAIM, review, decided, delegate(active()), chart())  # noqa: B023
        )
        assert refused.code == EXCLUSIVE_APPROVAL
