"""Out-of-office cover: setting it and revoking it."""

from __future__ import annotations

from portal.domain.messages.markers import N_

DELEGATIONS: dict[str, str | tuple[str, str]] = {
    "delegation_self": N_("Choose someone other than yourself to cover for you."),
    # An id of another organization answers like one that names nobody.
    "delegate_unknown": N_("Choose a member of this organization to cover."),
    "delegator_unknown": N_("Choose the member of this organization who is away."),
    "delegate_inactive": N_("That member is no longer active here; choose someone else."),
    "delegator_inactive": N_("That member is no longer active here."),
    "delegation_unknown_kind": N_("Choose one of this organization's kinds of document."),
    # %(today)s is the organization's day, YYYY-MM-DD.
    "delegation_backdated": N_(
        "A cover cannot start in the past: the earliest first day is today (%(today)s)."
    ),
    "delegation_too_far_ahead": N_("A cover may start at most %(days)s days ahead."),
    "delegation_window_invalid": N_("The last day cannot come before the first day."),
    "delegation_too_long": N_("A cover may last at most %(days)s days."),
    "reason_required": N_("Say why (for example: annual leave)."),
    "reason_too_long": N_("The reason may be at most %(limit)s characters long."),
    "delegation_over": N_("That cover has already ended or been revoked."),
}
