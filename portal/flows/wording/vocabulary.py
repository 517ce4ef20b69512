"""The names of a flow's choices — kinds of step, gates, what a deadline does, what an
empty seat does, field types, kinds of grantee — for the flow page and the editor."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString

from portal.domain.graph import (
    BreachAction,
    FieldType,
    Gate,
    GranteeKind,
    OnVacancy,
    StateRole,
)

STATE_ROLES = {
    StateRole.DRAFT: _l("Draft"),
    StateRole.PENDING: _l("Pending"),
    StateRole.ACCRUAL: _l("Accrual (money committed)"),
    StateRole.PAYOUT: _l("Payout (money leaves)"),
    StateRole.ACKNOWLEDGED: _l("Acknowledged"),
    StateRole.DISPUTE: _l("Dispute"),
    StateRole.REJECTED: _l("Rejected"),
    StateRole.CANCELLED: _l("Cancelled"),
    StateRole.CUSTOM: _l("Custom"),
}
GATES = {
    Gate.REQUESTER: _l("The requester"),
    Gate.TARGET: _l("Approvers of the next state"),
    Gate.SOURCE: _l("Approvers of this state"),
    Gate.ADVANCE: _l("Whoever may approve from here"),
}
BREACH_ACTIONS = {
    BreachAction.REMIND: _l("remind"),
    BreachAction.ESCALATE_UP: _l("escalate one seat up"),
    BreachAction.REASSIGN: _l("reassign to the assignee's superior"),
    BreachAction.AUTO: _l("fire automatically"),
}
ON_VACANCY = {OnVacancy.ESCALATE: _l("escalate to the seat above"), OnVacancy.REFUSE: _l("refuse")}
FIELD_TYPES = {
    FieldType.TEXT: _l("Text"),
    FieldType.NUMBER: _l("Number"),
    FieldType.MONEY: _l("Money"),
    FieldType.DATE: _l("Date"),
    FieldType.CHOICE: _l("Choice"),
    FieldType.BOOL: _l("Yes or no"),
}
GRANTEE_KINDS = {
    GranteeKind.MEMBER: _l("A member"),
    GranteeKind.POSITION: _l("A seat"),
    GranteeKind.SUPERIOR: _l("The requester's superior"),
    GranteeKind.UNIT_HEAD: _l("The head of the requester's unit"),
    GranteeKind.LEVELS_UP: _l("Seats above the requester"),
    GranteeKind.ROLE: _l("Everyone with a role"),
}


def page_vocabulary() -> dict[str, dict[str, LazyString]]:
    """What the flow page's template names the choices by."""
    return {"STATE_ROLES": STATE_ROLES, "GATES": GATES, "BREACH_ACTIONS": BREACH_ACTIONS}
