"""Review findings on reading covers, each shown by a test.

A second hop is named only where the first would reach: a cover for purchase requests
to Hannah, lent on by Hannah to Grace, says nothing about an expense claim — for it,
Grace is simply not assigned, not refused for a chain that does not exist.
"""

from __future__ import annotations

import pytest

from portal.core.uow import unit_of_work
from portal.delegations.queries import covers_reaching
from tests.delegations.covers import DAY, set_cover, start_today
from tests.factories import demo_people


@pytest.fixture
def people(app, globex):
    return demo_people()


def _reaching(actor, kind: str, today):
    with unit_of_work(actor.org_id) as uow:
        return covers_reaching(uow.session.connection(), actor.org_id, actor.member_id, kind, today)


def test_a_second_hop_is_named_only_for_the_kinds_the_first_cover_reaches(people):
    nurul, hannah, grace = people("nurul"), people("hannah"), people("grace")
    today = start_today()
    set_cover(nurul, hannah, today, today + DAY, kind="purchase_request")
    set_cover(hannah, grace, today, today + DAY)

    # Allowed case first: for purchase requests Nurul's authority would come by a
    # second hop, and that is what a refusal says.
    assert _reaching(grace, "purchase_request", today).chained == {nurul.member_id}
    # For expense claims Nurul lent Hannah nothing: there is no chain to name.
    assert _reaching(grace, "expense_claim", today).chained == frozenset()
