"""The kinds every organization starts with."""

from __future__ import annotations

from decimal import Decimal

EXPENSE_CLAIM = "expense_claim"
PURCHASE_REQUEST = "purchase_request"
LEAVE_REQUEST = "leave_request"
SEEDED_KINDS = (EXPENSE_CLAIM, PURCHASE_REQUEST, LEAVE_REQUEST)

# Purchase requests from this amount up are the unit head's to approve, not the superior's.
PURCHASE_UNIT_HEAD_FLOOR = Decimal("10000.00")
