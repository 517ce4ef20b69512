"""Documents and their transitions, and who approves (gaps, the routing preview)."""

from __future__ import annotations

from portal.domain.messages.markers import N_, N_plural

DOCUMENTS: dict[str, str | tuple[str, str]] = {
    # documents and transitions
    "stale_state": N_(
        "This document has moved on since you looked at it (it is now “%(current)s”). Reload to see where it stands."
    ),
    "transition_not_allowed": N_("“%(transition)s” is not possible from “%(state)s”."),
    "comment_required": N_("A comment is required for this action."),
    # i18n: %(message)s is the flow's own explanation, already in the reader's language.
    "guard_failed": N_("%(message)s"),
    "not_requester": N_("Only the requester can do that."),
    "not_assigned": N_("You are not among the people who may decide this document now."),
    "self_approval": N_("Nobody may approve their own document."),
    "dispute_raiser": N_("Whoever raised a dispute cannot also close it."),
    "no_band_covers_amount": N_("No approver's band covers an amount of %(amount)s."),
    "delegation_not_active": N_("That delegation is not active today."),
    "delegation_own_document": N_(
        "You cover for the requester of this document: nobody decides their own document, not even on their behalf."
    ),
    "delegation_chain": N_(
        "Authority you hold by cover is never lent on: only the person covering the approver may act on their behalf."
    ),
    # handing an open task to a colleague (documents.handover)
    "handover_not_holder": N_("Only whoever holds an open task on this document can hand it over."),
    "handover_self": N_("Choose someone other than yourself."),
    "handover_requester": N_(
        "The requester cannot decide their own document: choose someone else."
    ),
    # An id of another organization answers like one that names nobody.
    "handover_member_unknown": N_("Choose a member of this organization."),
    "handover_member_inactive": N_("That member is no longer active here; choose someone else."),
    # i18n: %(name)s is the member the task was to go to.
    "handover_not_eligible": N_(
        "%(name)s cannot decide this step on their own authority. A handover moves the work, not the authority to decide it: to lend your authority while you are away, set a cover instead."
    ),
    "handover_reason_required": N_("Say why you hand it over."),
    "automatic_money_move": N_(
        "A deadline may not move money on its own: a person must take this step."
    ),
    # exclusive approval: %(step)s is the name of the step they decided.
    "exclusive_approval": N_(
        "You already decided “%(step)s” on this document. This flow has exclusive approval: nobody decides more than one step of the same document."
    ),
    "route_has_gap": N_(
        "Nobody could decide this document at “%(state)s” (%(reason)s). An admin can see why under Who would approve?"
    ),
    "notice_task_assigned": N_("%(reference)s is waiting for your decision."),
    "notice_document_moved": N_("%(reference)s has moved on: %(transition)s."),
    "bulk_empty": N_("Choose at least one document."),
    "bulk_too_large": N_("At most %(limit)s documents can be handled at once; %(num)s were sent."),
    "bulk_duplicates": N_("Each document may appear only once; repeated: %(references)s."),
    "document_frozen": N_(
        "The document can only be edited while it is a draft; it is now “%(state)s”."
    ),
    # discarding a draft
    "document_discarded": N_(
        "This draft was discarded by its requester. It is kept for the record, but it is no longer listed and nothing more can be done with it."
    ),
    "discard_after_submission": N_(
        "This document has been submitted, so it cannot be discarded: it stays on the record. Withdraw or cancel it through its flow instead."
    ),
    "title_required": N_("A title is required."),
    "title_too_long": N_("The title is longer than %(limit)s characters."),
    "invalid_fields": N_plural(
        "%(num)s field needs attention; nothing was saved.",
        "%(num)s fields need attention; nothing was saved.",
    ),
    "field_required": N_("%(label)s is required."),
    "field_not_text": N_("%(label)s must be text."),
    "field_too_long": N_("%(label)s is longer than %(limit)s characters."),
    "field_not_number": N_("%(label)s must be a number."),
    "field_not_date": N_("%(label)s must be a date (YYYY-MM-DD)."),
    "field_not_choice": N_("%(label)s must be one of the listed choices."),
    "field_not_bool": N_("%(label)s must be yes or no."),
    "field_unknown": N_("This kind of document has no field “%(key)s”."),
    # who approves: gaps in a route, and the routing preview
    "gap_vacant": N_(
        "Nobody holds %(position)s, and no filled seat above it is within reach of this grant."
    ),
    "gap_position_retired": N_("The position %(position)s is retired or gone."),
    "gap_no_primary_position": N_(
        "%(member)s has no primary position, so there is no superior or unit to start from."
    ),
    "gap_no_unit_head": N_(
        "%(unit)s has no head position (and none above it that this grant may use)."
    ),
    "gap_above_root": N_(
        "There is no seat that far above %(position)s: it is the top of its chart."
    ),
    "gap_member_inactive": N_("%(member)s is no longer an active member."),
    "gap_role_empty": N_("No active member has the role %(role)s."),
    "gap_only_the_requester": N_(
        "Only %(member)s could decide here, and nobody approves their own document."
    ),
    "gap_dispute_raiser": N_(
        "Only %(member)s could decide here, and whoever raised a dispute cannot also close it."
    ),
    "gap_no_band": N_("No grant on this step covers this amount."),
    "gap_exclusive_approval": N_(
        "Everyone who may decide this step also decides another step of this document, and this flow has exclusive approval: nobody decides more than one step."
    ),
    # money (domain.money): %(example)s is 1234.50 as the reader writes amounts,
    # such as "1,234.50"; %(limit)s is a number formatted for the reader.
    "amount_negative": N_("The amount cannot be negative."),
    "amount_invalid": N_("Type the amount in digits, as %(example)s."),
    "amount_ambiguous": N_(
        "That amount could be read more than one way. Type the amount as %(example)s."
    ),
    "amount_too_large": N_("The amount must be less than %(limit)s."),
    # i18n: %(currency)s is an ISO 4217 code such as MYR.
    "amount_too_precise": N_plural(
        "%(currency)s amounts have at most %(num)s decimal place.",
        "%(currency)s amounts have at most %(num)s decimal places.",
    ),
    # i18n: %(currency)s is an ISO 4217 code such as JPY, a currency without cents.
    "amount_whole_units": N_("%(currency)s amounts are whole numbers, without decimals."),
    "field_number_invalid": N_("%(label)s must be a number in digits, such as %(example)s."),
    "field_number_ambiguous": N_(
        "%(label)s could be read more than one way. Type it as %(example)s."
    ),
    "field_number_too_large": N_("%(label)s must be less than %(limit)s in size."),
    "field_number_too_precise": N_plural(
        "%(label)s has at most %(num)s decimal place.",
        "%(label)s has at most %(num)s decimal places.",
    ),
    "amount_currency_mismatch": N_(
        "Amounts are in the organization's base currency, %(base)s, not “%(currency)s”."
    ),
    "unknown_flow": N_("There is no published flow “%(kind)s”."),
    "unknown_requester": N_("Pick a member of this organization."),
}
