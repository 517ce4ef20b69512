"""Handing an open task to a colleague (DESIGN §4 "Delegation"): the rules, pure.

Whoever holds an open task on a document may hand it to another active member of the
organization, with a reason. The handover moves the work, never authority: the receiver
must be able to decide the step on authority of their own (the grants' winning band for
the amount, or an active cover from someone in it) — lending authority is what cover is
for. Checked when the task is handed over, and again when the receiver decides: their
task, ``via`` handover, authorises nothing by itself (``domain.authority``).

The history records it as a decision row that leaves the state as it is, with gate and
transition "handover", the holder as actor and authority, and the receiver as the one
eligible member.
"""

from __future__ import annotations

from portal.domain.errors import DomainError
from portal.domain.text_input import clean_text

# The gate and the transition of a handover's row in the history.
HANDOVER_GATE = "handover"
HANDOVER_TRANSITION = "handover"
MAX_REASON = 500


def check_handover_reason(reason: str) -> str:
    """The reason, cleaned, or the refusal naming the field ``reason``: a control
    character, ``handover_reason_required``, ``reason_too_long``."""
    cleaned = clean_text(reason, field="reason", multiline=False, limit=MAX_REASON * 4).strip()
    if not cleaned:
        raise DomainError("handover_reason_required", field="reason")
    if len(cleaned) > MAX_REASON:
        raise DomainError("reason_too_long", field="reason", limit=MAX_REASON)
    return cleaned


def check_receiver(*, holder: int, receiver: int, requester: int) -> None:
    """Refusals that need no look-up: handing to oneself (``handover_self``), or to the
    document's requester, who never decides their own document (``handover_requester``)."""
    if receiver == holder:
        raise DomainError("handover_self", field="to_member")
    if receiver == requester:
        raise DomainError("handover_requester", field="to_member")
