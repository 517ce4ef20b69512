"""The flows every new organization starts with, published as version 1.

Their grants name only what every organization has — the requester's superior, the
head of the requester's unit, and the organization's admins — so they validate
everywhere; the readiness check tells an admin what their chart still lacks.
Floors are in the organization's base currency, so the graphs are built per currency.
The expense claim is in ``claims``, the purchase and leave requests in ``requests``.
"""

from __future__ import annotations

from portal.domain.graph import Graph
from portal.flows.seeded.claims import expense_claim
from portal.flows.seeded.kinds import (
    EXPENSE_CLAIM,
    LEAVE_REQUEST,
    PURCHASE_REQUEST,
    PURCHASE_UNIT_HEAD_FLOOR,
    SEEDED_KINDS,
)
from portal.flows.seeded.requests import leave_request, purchase_request

__all__ = [
    "EXPENSE_CLAIM",
    "LEAVE_REQUEST",
    "PURCHASE_REQUEST",
    "PURCHASE_UNIT_HEAD_FLOOR",
    "SEEDED_KINDS",
    "expense_claim",
    "leave_request",
    "purchase_request",
    "seeded_graphs",
]


def seeded_graphs(base_currency: str) -> list[Graph]:
    """Every graph a new organization gets, in the order they are listed."""
    return [
        expense_claim(base_currency),
        purchase_request(base_currency),
        leave_request(base_currency),
    ]
