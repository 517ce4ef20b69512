"""Every user-facing rule message, keyed by its error code, one module per area.

``N_`` only marks the strings for extraction; ``web/errors.py`` translates them at
the edge with the error's parameters.
"""

from __future__ import annotations

from portal.domain.messages.accounts import ACCOUNTS
from portal.domain.messages.audit_search import AUDIT_SEARCH
from portal.domain.messages.audit_stalls import AUDIT_STALLS
from portal.domain.messages.delegations import DELEGATIONS
from portal.domain.messages.documents import DOCUMENTS
from portal.domain.messages.flows import FLOWS
from portal.domain.messages.general import GENERAL
from portal.domain.messages.markers import N_ as N_
from portal.domain.messages.markers import N_plural as N_plural
from portal.domain.messages.notifications import NOTIFICATIONS
from portal.domain.messages.orgchart import ORGCHART

MESSAGES: dict[str, str | tuple[str, str]] = {
    **GENERAL,
    **ACCOUNTS,
    **ORGCHART,
    **DOCUMENTS,
    **FLOWS,
    **NOTIFICATIONS,
    **DELEGATIONS,
    **AUDIT_SEARCH,
    **AUDIT_STALLS,
}
