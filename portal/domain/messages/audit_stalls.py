"""Where approvals stall: what the page's filter is refused for (a day that is not one
and a period that ends before it starts use the shared ``invalid_date`` and
``dates_out_of_order``)."""

from __future__ import annotations

from portal.domain.messages.markers import N_

AUDIT_STALLS: dict[str, str | tuple[str, str]] = {
    # i18n: %(flow)s is the flow's key as the link wrote it, e.g. "expense_claim".
    "stalls_unknown_flow": N_(
        "This organization has no published flow “%(flow)s”. Choose one of its flows from the list."
    ),
    # i18n: %(version)s is the version as the link wrote it.
    "stalls_unknown_version": N_(
        "This flow has no published version “%(version)s”. Choose one of its versions, or all of them."
    ),
    "stalls_period_too_long": N_(
        "A period may be at most %(days)s days long. Choose a later start or an earlier end."
    ),
    "stalls_no_flows": N_(
        "This organization has not published any flow yet: there is nothing to chart."
    ),
}
