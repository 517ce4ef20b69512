"""What the seeded flows are built from: labels in the three languages, states,
transitions and grants written briefly, and the words several flows share."""

from __future__ import annotations

from dataclasses import replace

from portal.domain.graph import (
    CommentPolicy,
    Deadline,
    Grant,
    Grantee,
    State,
    Transition,
    TransitionGuard,
)
from portal.domain.labels import Labels


def labels(en: str, zh: str, ms: str) -> Labels:
    """A seeded label in English, Chinese and Malay."""
    return Labels({"en": en, "zh": zh, "ms": ms})


def state(
    key: str,
    names: Labels,
    role: str,
    x: int,
    y: int,
    *,
    terminal: bool = False,
    deadline: Deadline | None = None,
) -> State:
    return State(key=key, labels=names, role=role, x=x, y=y, terminal=terminal, deadline=deadline)


def go(
    key: str,
    source: str,
    target: str,
    gate: str,
    names: Labels,
    order: int,
    *,
    guard: TransitionGuard | None = None,
) -> Transition:
    return Transition(
        key=key,
        from_state=source,
        to_state=target,
        gate=gate,
        labels=names,
        order=order,
        guard=guard,
    )


def with_comment(t: Transition, *, reverses: bool = False) -> Transition:
    return replace(t, comment=CommentPolicy.REQUIRED, reverses=reverses)


def grant(on: str, kind: str, *, walk_up: bool | None = None, role: str | None = None) -> Grant:
    return Grant(state=on, grantee=Grantee(kind=kind, walk_up=walk_up, role=role))


REJECT = labels("Reject", "拒绝", "Tolak")
WITHDRAW = labels("Withdraw", "撤回", "Tarik balik")
SUBMIT = labels("Submit", "提交", "Hantar")
APPROVE = labels("Approve", "批准", "Luluskan")
POSITIVE_AMOUNT = "document.amount > 0"
