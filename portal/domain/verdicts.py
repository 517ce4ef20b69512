"""A verdict given to many documents at once: which transition "approve" and "reject"
mean for each.

The inbox decides a selection with one of two buttons, but the documents may sit in
different states, each with its own transitions (review, approve, verify_category, pay,
…). "Reject" is the transition keyed ``reject`` wherever the document is; "approve" is
the first transition, in flow order, that the member's task authorises and that is not
a rejection. The engine still checks each one, so a mapping here grants nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

APPROVE = "approve"
REJECT = "reject"
VERDICTS = (APPROVE, REJECT)


def transition_for(verdict: str, authorised: Sequence[str]) -> str | None:
    """The transition ``verdict`` stands for, given the keys the member's task
    authorises (flow order); None when approving finds nothing to take."""
    if verdict == REJECT:
        return REJECT
    if verdict != APPROVE:
        raise ValueError(f"unknown verdict {verdict!r}")
    return next((key for key in authorised if key != REJECT), None)
