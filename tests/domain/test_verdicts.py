"""What "approve" and "reject" mean for a document in a bulk decision."""

from __future__ import annotations

import pytest

from portal.domain.verdicts import APPROVE, REJECT, transition_for


def test_approve_takes_the_first_authorised_transition_that_is_not_a_rejection():
    assert transition_for(APPROVE, ("review", "reject")) == "review"
    assert transition_for(APPROVE, ("reject", "pay")) == "pay"


def test_approve_finds_nothing_when_the_task_only_rejects_or_authorises_nothing():
    assert transition_for(APPROVE, ("reject",)) is None
    assert transition_for(APPROVE, ()) is None


def test_reject_is_the_reject_transition_whatever_the_task_says():
    # The engine refuses it where the flow does not offer it; nothing is granted here.
    assert transition_for(REJECT, ("review", "reject")) == "reject"
    assert transition_for(REJECT, ()) == "reject"


def test_an_unknown_verdict_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown verdict"):
        transition_for("maybe", ("review",))
