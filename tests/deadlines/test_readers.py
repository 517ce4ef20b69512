"""Who reads the history is not misled by the sweep's own rows (gate "deadline",
nobody as actor, the state unchanged): they decide no step under exclusive approval,
and take no document out of the state a "waiting for your decision" notice is about.
"""

from __future__ import annotations

from portal.documents.queries.notices import NoticeDecision, NoticeFacts
from portal.domain.deadlines import DEADLINE_GATE
from portal.domain.exclusive import PriorDecision, steps_decided
from portal.domain.graph import Gate
from portal.flows.seeded import expense_claim

CLAIM = expense_claim("MYR")
REVIEWER, APPROVER = 11, 12


def test_an_escalation_row_decides_no_step_under_exclusive_approval():
    review = PriorDecision("review", "pending_review", "reviewed", Gate.TARGET, REVIEWER, REVIEWER)
    # The allowed case: the review counts as the reviewer's step.
    assert steps_decided(CLAIM, [review]) == {REVIEWER: frozenset({"reviewed"})}
    # A sweep row, even one naming members (it never does), counts for nobody.
    escalated = PriorDecision(
        "escalate_up", "reviewed", "reviewed", DEADLINE_GATE, APPROVER, APPROVER
    )
    reassigned = PriorDecision("reassign", "reviewed", "reviewed", DEADLINE_GATE, None, None)
    assert steps_decided(CLAIM, [review, escalated, reassigned]) == {
        REVIEWER: frozenset({"reviewed"})
    }


def test_a_waiting_notice_still_stands_after_an_escalation_and_not_after_the_move():
    doc = 7
    submit = NoticeDecision(1, 3, "Siti", "submit", "draft", "pending_review", "")
    escalation = NoticeDecision(
        2, None, None, "escalate_up", "pending_review", "pending_review", ""
    )
    facts = NoticeFacts(
        decisions={(doc, 1): submit, (doc, 2): escalation},
        open_tasks={(doc, "pending_review")},
    )
    assert facts.left_after(doc, 1, "pending_review") is None
    assert facts.still_waiting(doc, 1, "pending_review")
    review = NoticeDecision(3, REVIEWER, "Nurul", "review", "pending_review", "reviewed", "")
    moved = NoticeFacts(
        decisions={(doc, 1): submit, (doc, 2): escalation, (doc, 3): review},
        open_tasks={(doc, "pending_review")},
    )
    assert moved.left_after(doc, 1, "pending_review") == review
    assert not moved.still_waiting(doc, 1, "pending_review")
