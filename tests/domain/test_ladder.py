"""Amount bands: which of a step's resolved grants decide a document of a given amount.

The story pins DESIGN §4 "Bands" one sentence at a time: grants resolved to nobody drop
out; the winning floor is the highest floor at or below the amount; only that band's
members decide, never the requester; bands are half-open (2000.00 exactly belongs to
the 2000 band); and there is no fallback upward or downward.

Each rung is a resolution built by hand — a floor and the members it found — so the
ladder is read without any org chart.
"""

from __future__ import annotations

from decimal import Decimal

from portal.domain.graph import Grant, Grantee, GranteeKind
from portal.domain.ladder import Band, band_for, winning_floor
from portal.domain.resolution import Resolution

REQUESTER = 1
CLERK, MANAGER, DIRECTOR, CEO = 11, 12, 13, 14


def rung(floor: str | None, *members: int) -> Resolution:
    """A grant with this floor (None: no ``min_amount``) that resolved to ``members``."""
    g = Grant(
        grantee=Grantee(kind=GranteeKind.ROLE, role="approver"),
        state="approved",
        min_amount=None if floor is None else Decimal(floor),
    )
    return Resolution(g, 0, tuple(members))


def ladder(*rungs: Resolution) -> list[Resolution]:
    """The rungs as one step's resolutions, indexed in the order given."""
    return [Resolution(r.grant, i, r.members) for i, r in enumerate(rungs)]


def band(amount: str, *rungs: Resolution) -> Band | None:
    return band_for(ladder(*rungs), Decimal(amount), REQUESTER)


def test_a_grant_resolved_to_nobody_drops_out_of_the_ladder():
    assert band("6000", rung(None, CLERK), rung("5000", CEO)) == Band(Decimal("5000"), (CEO,), (1,))
    # The 5000 grant found nobody: it is not a rung, and the amount lands on the one below.
    assert band("6000", rung(None, CLERK), rung("5000")) == Band(Decimal("0"), (CLERK,), (0,))


def test_the_winning_floor_is_the_highest_floor_at_or_below_the_amount():
    # Out of order on purpose: the floor wins by its value, not by its place.
    step = ladder(rung("5000", CEO), rung(None, CLERK), rung("1000", MANAGER))
    assert winning_floor(step, Decimal("999.99")) == Decimal("0")
    assert winning_floor(step, Decimal("1000")) == Decimal("1000")
    assert winning_floor(step, Decimal("4999.99")) == Decimal("1000")
    assert winning_floor(step, Decimal("5000")) == Decimal("5000")
    assert winning_floor(step, Decimal("1000000")) == Decimal("5000")


def test_bands_are_half_open_so_2000_exactly_belongs_to_the_2000_band():
    rungs = (rung("0", CLERK), rung("2000", MANAGER))
    assert band("1999.99", *rungs) == Band(Decimal("0"), (CLERK,), (0,))
    assert band("2000.00", *rungs) == Band(Decimal("2000"), (MANAGER,), (1,))


def test_only_the_winning_bands_members_decide():
    rungs = (rung(None, CLERK), rung("5000", CEO))
    assert band("4999.99", *rungs) == Band(Decimal("0"), (CLERK,), (0,))
    # The clerk may approve small amounts, and is not asked about the CEO's.
    assert band("5000", *rungs) == Band(Decimal("5000"), (CEO,), (1,))


def test_the_requester_is_never_in_the_band():
    assert band("10", rung("0", MANAGER, REQUESTER)) == Band(Decimal("0"), (MANAGER,), (0,))
    # A band of only the requester is there, and empty: not "no band".
    assert band("10", rung("0", REQUESTER)) == Band(Decimal("0"), (), (0,))


def test_an_empty_winning_band_does_not_fall_back_downward_or_upward():
    rungs = (rung("0", CLERK), rung("1000", MANAGER), rung("5000", CEO))
    assert band("1000", *rungs) == Band(Decimal("1000"), (MANAGER,), (1,))
    # The requester is the 1000 band: neither the clerk below nor the CEO above steps in.
    rungs = (rung("0", CLERK), rung("1000", REQUESTER), rung("5000", CEO))
    assert band("1000", *rungs) == Band(Decimal("1000"), (), (1,))


def test_an_amount_below_every_floor_has_no_band():
    rungs = (rung("500", MANAGER), rung("5000", CEO))
    assert band("500", *rungs) == Band(Decimal("500"), (MANAGER,), (0,))
    # No fallback upward to the lowest band: nobody decides.
    assert winning_floor(ladder(*rungs), Decimal("499.99")) is None
    assert band("499.99", *rungs) is None


def test_a_step_with_no_grant_that_found_anyone_has_no_band():
    assert band("10") is None
    assert band("10", rung("0"), rung("5")) is None


def test_no_floor_and_a_zero_floor_are_the_same_floor():
    assert band("10", rung(None, CLERK), rung("0", MANAGER), rung("0.00", DIRECTOR)) == Band(
        Decimal("0"), (CLERK, MANAGER, DIRECTOR), (0, 1, 2)
    )


def test_grants_on_one_floor_pool_their_members_sorted_and_once_each():
    rungs = (rung("1000", DIRECTOR, CLERK), rung("1000", CLERK, MANAGER), rung("0", CEO))
    assert band("1500", *rungs) == Band(Decimal("1000"), (CLERK, MANAGER, DIRECTOR), (0, 1))
