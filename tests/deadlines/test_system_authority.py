"""The system's authority, pure: the deadline sweep firing a state's automatic
transition is authorised for any gate but the requester's, recorded ``via`` system.
A member never is, whatever the principal says; nor is the platform acting otherwise.

The chart and flows are ``tests.domain.test_engine``'s: a purchase request from STAFF
waits for LEAD, their superior.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from portal.domain.authority import Principal
from portal.domain.engine import TransitionRefused, Via, authorize
from tests.domain.test_engine import CLAIM, PURCHASE, chart, doc, exit_of
from tests.domain.test_resolution import LONER, STAFF
from tests.domain.test_routing import LEAD

SYSTEM = Principal(None, system=True)


def test_the_system_may_take_a_grant_gated_transition_on_nobodys_authority():
    found = authorize(
        PURCHASE,
        exit_of(PURCHASE, "submitted", "approve"),
        doc(PURCHASE, "submitted"),
        SYSTEM,
        chart(),
    )
    assert (found.via, found.authority_member) == (Via.SYSTEM, None)
    # The eligible set as it stood: the superior's.
    assert found.eligible == (LEAD,)


def test_without_the_flag_the_platform_decides_nothing():
    with pytest.raises(TransitionRefused) as refused:
        authorize(
            PURCHASE,
            exit_of(PURCHASE, "submitted", "approve"),
            doc(PURCHASE, "submitted"),
            Principal(None),
            chart(),
        )
    assert refused.value.code == "not_assigned"


def test_a_member_never_gets_the_systems_authority():
    approve = exit_of(PURCHASE, "submitted", "approve")
    # The allowed case: the superior approves on the grant's authority, not the system's.
    found = authorize(
        PURCHASE, approve, doc(PURCHASE, "submitted"), Principal(LEAD, system=True), chart()
    )
    assert found.via == Via.GRANT and found.authority_member == LEAD
    for member, code in ((LONER, "not_assigned"), (STAFF, "self_approval")):
        with pytest.raises(TransitionRefused) as refused:
            authorize(
                PURCHASE,
                approve,
                doc(PURCHASE, "submitted"),
                Principal(member, system=True),
                chart(),
            )
        assert refused.value.code == code


def test_the_system_never_takes_the_requesters_own_steps():
    with pytest.raises(TransitionRefused) as refused:
        authorize(
            PURCHASE, exit_of(PURCHASE, "draft", "submit"), doc(PURCHASE, "draft"), SYSTEM, chart()
        )
    assert refused.value.code == "not_requester"


def test_the_system_never_moves_money_whatever_the_graph_says():
    # Allowed first: a step that commits nothing (approve) is the system's to take.
    found = authorize(
        CLAIM, exit_of(CLAIM, "reviewed", "approve"), doc(CLAIM, "reviewed"), SYSTEM, chart()
    )
    assert found.via == Via.SYSTEM
    # Into the accrual (money committed) and the payout: a person's, always.
    for state, key in (("approved", "verify_category"), ("category_verified", "pay")):
        with pytest.raises(TransitionRefused) as refused:
            authorize(CLAIM, exit_of(CLAIM, state, key), doc(CLAIM, state), SYSTEM, chart())
        assert refused.value.code == "automatic_money_move"


def test_the_system_decides_no_amount_that_no_band_covers():
    # The purchase request's bands start at zero; a graph whose only grant starts
    # higher leaves a small amount to nobody — nor to the system.
    raised = replace(
        PURCHASE,
        grants=tuple(replace(g, min_amount=Decimal("1000000")) for g in PURCHASE.grants),
    )
    with pytest.raises(TransitionRefused) as refused:
        authorize(
            raised,
            exit_of(raised, "submitted", "approve"),
            doc(raised, "submitted"),
            SYSTEM,
            chart(),
        )
    assert refused.value.code == "no_band_covers_amount"
