"""Review findings on the authority check under cover, each shown by a test (pure).

A delegate covering two members of a step acts on whichever cover lends the authority:
a rule that refuses one delegator (they raised the dispute, they spent their step under
exclusive approval) does not refuse the other, whatever order the covers are read in.
But standing in for the requester, they borrow nobody's authority for the requester's
own document, whichever other delegator's band it would come from.
"""

from __future__ import annotations

from functools import partial

from portal.domain.authority import Principal, Via, authorize
from portal.domain.delegation import Cover
from tests.domain.test_engine import ADMIN, CLAIM, TREASURER, chart, doc, exit_of, refusal
from tests.domain.test_resolution import LONER, STAFF

DISMISS = exit_of(CLAIM, "disputed", "dismiss")


def _covering(*delegators: int) -> Principal:
    covers = tuple(Cover(70 + i, d, True) for i, d in enumerate(delegators))
    return Principal(LONER, frozenset(), None, covers=covers)


def test_a_delegate_of_two_acts_on_the_cover_whose_delegator_did_not_raise_the_dispute():
    raised_by_admin = doc(CLAIM, "disputed", dispute_raiser=ADMIN)
    # Whichever order the covers come in, the treasurer's lends it.
    for principal in (_covering(ADMIN, TREASURER), _covering(TREASURER, ADMIN)):
        lent = authorize(CLAIM, DISMISS, raised_by_admin, principal, chart())
        treasurers = next(c for c in principal.covers if c.delegator == TREASURER)
        assert (lent.via, lent.authority_member, lent.delegation_id) == (
            Via.DELEGATION,
            TREASURER,
            treasurers.delegation_id,
        )


def test_the_refusal_stands_when_no_cover_lends_it():
    raised_by_admin = doc(CLAIM, "disputed", dispute_raiser=ADMIN)
    refused = refusal(lambda: authorize(CLAIM, DISMISS, raised_by_admin, _covering(ADMIN), chart()))
    assert refused.code == "dispute_raiser"


def test_a_delegate_of_the_requester_borrows_nobodys_authority_for_the_requesters_document():
    # Allowed first: covering only the admin, the delegate dismisses STAFF's dispute.
    staffs = doc(CLAIM, "disputed", requester=STAFF)
    assert authorize(CLAIM, DISMISS, staffs, _covering(ADMIN), chart()).via == Via.DELEGATION
    # Standing in for STAFF too, they act on STAFF's own document on nobody's behalf,
    # whichever order the covers come in.
    for principal in (_covering(STAFF, ADMIN), _covering(ADMIN, STAFF)):
        refused = refusal(partial(authorize, CLAIM, DISMISS, staffs, principal, chart()))
        assert refused.code == "delegation_own_document"
