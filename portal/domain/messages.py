"""Every user-facing rule message, keyed by its error code.

``N_`` only marks the strings for extraction; ``web/errors.py`` translates them at
the edge with the error's parameters.
"""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 - the conventional gettext marker name
    return message


# A plain string, or (singular, plural) for messages counted by their "num" parameter.
def N_plural(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802
    """Marks a message counted by its ``num`` parameter (extracted as a plural entry)."""
    return (singular, plural)


MESSAGES: dict[str, str | tuple[str, str]] = {
    # generic
    "not_found": N_("Not found."),
    "forbidden": N_("You are not allowed to do that."),
    "admin_required": N_("Only an organization admin can do that."),
    "tenant_not_set": N_("No organization was selected for this request."),
    "cross_tenant_write": N_("That belongs to another organization."),
    "csrf_failed": N_(
        "Your form expired or came from another site. Reload the page and try again."
    ),
    "session_expired": N_("Your session has ended. Please sign in again."),
    "bad_request": N_("The request could not be understood."),
    # sign-in
    "invalid_credentials": N_("That email and password do not match an active account."),
    "login_throttled": N_plural(
        "Too many failed sign-in attempts. Try again in %(num)s minute.",
        "Too many failed sign-in attempts. Try again in %(num)s minutes.",
    ),
    # organizations and members
    "invalid_slug": N_("Use 2–63 lower-case letters, digits or hyphens, starting with a letter."),
    "duplicate_slug": N_("An organization with the address “%(slug)s” already exists."),
    "invalid_currency": N_("“%(currency)s” is not a three-letter ISO 4217 currency code."),
    "unsupported_locale": N_("“%(locale)s” is not a supported language."),
    "invalid_email": N_("“%(email)s” is not a valid email address."),
    "duplicate_email": N_("%(email)s is already a member of this organization."),
    "unknown_role": N_("“%(role)s” is not a role."),
    "last_admin": N_(
        "An organization needs at least one active admin; this change would leave none."
    ),
    "cannot_deactivate_self": N_("You cannot deactivate your own membership."),
    "member_inactive": N_("%(name)s's membership is inactive."),
    "name_required": N_("A name is required."),
    # org chart
    "duplicate_code": N_("The code “%(code)s” is already used."),
    "invalid_code": N_("Use 1–40 letters, digits, dots, hyphens or underscores."),
    "unknown_unit": N_("There is no unit with the code “%(code)s”."),
    "unknown_position": N_("There is no position with the code “%(code)s”."),
    "unknown_member": N_("There is no member with the email “%(email)s”."),
    "reports_to_self": N_("A position cannot report to itself."),
    "reporting_cycle": N_(
        "%(position)s cannot report to %(superior)s: that would make a reporting cycle."
    ),
    "unit_parent_self": N_("A unit cannot be its own parent."),
    "unit_cycle": N_("%(unit)s cannot sit under %(parent)s: that would make a cycle of units."),
    "head_outside_unit": N_("The head position must belong to the unit it heads."),
    "position_retired": N_("The position %(code)s is retired."),
    "dates_out_of_order": N_("The end date must not be before the start date."),
    "overlapping_primary": N_(
        "%(name)s already has a primary position from %(start)s; end it first or make this one secondary."
    ),
    "invalid_holding_kind": N_("A holding is either primary or secondary."),
    "invalid_date": N_("“%(value)s” is not a date (use YYYY-MM-DD)."),
    "holding_already_ended": N_("That holding has already ended."),
    # CSV import
    "bad_rows": N_plural(
        "%(num)s row has a problem; nothing was imported.",
        "%(num)s rows have problems; nothing was imported.",
    ),
    "csv_unreadable": N_("The file could not be read as UTF-8 CSV."),
    "csv_empty": N_("The file has no data rows."),
    "csv_missing_columns": N_("The header is missing these columns: %(columns)s."),
    "csv_too_large": N_("The file has more than %(limit)s rows."),
    "value_required": N_("A value is required."),
    "duplicate_in_file": N_("“%(value)s” appears more than once in the file."),
    "invalid_boolean": N_("“%(value)s” is not yes or no."),
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
    "gap_no_band": N_("No grant on this step covers this amount."),
    "amount_negative": N_("The amount cannot be negative."),
    "amount_invalid": N_("That is not an amount this preview can use."),
    "amount_too_precise": N_("Use at most %(places)s decimal places."),
    "amount_currency_mismatch": N_(
        "Amounts are in the organization's base currency, %(base)s, not “%(currency)s”."
    ),
    "unknown_flow": N_("There is no published flow “%(kind)s”."),
    "unknown_requester": N_("Pick a member of this organization."),
    # flow drafts and versions
    "stale_revision": N_(
        "Someone saved this draft after you opened it (it is now at revision %(current)s). "
        "Reload to see their changes."
    ),
    "flow_invalid": N_plural(
        "The flow cannot be published: it has %(num)s error.",
        "The flow cannot be published: it has %(num)s errors.",
    ),
    "version_conflict": N_(
        "Another version of %(kind)s was published at the same moment. Try again."
    ),
    "draft_gone": N_(
        "This draft was published or discarded after you opened it. Reload to see the flow as it is now."
    ),
    "draft_exists": N_("There is already a draft of %(kind)s: open that flow to import over it."),
    "graph_kind_mismatch": N_("This file describes the flow “%(kind)s”, not “%(expected)s”."),
    "readiness_flow_missing": N_(
        "The %(kind)s flow has no published version, so no such document can start."
    ),
    "readiness_member_inactive": N_("It names %(name)s, who is no longer an active member."),
    "readiness_position_retired": N_(
        "It names the position %(position)s, which is retired or gone."
    ),
    "readiness_position_vacant": N_(
        "It names the position %(position)s, which nobody holds today, and refuses to escalate."
    ),
    "readiness_role_empty": N_("It names the role %(role)s, which no active member holds."),
    # flow graph documents (import, the editor's save)
    "graph_not_json": N_("The file is not valid JSON (line %(line)s, column %(column)s)."),
    "graph_not_utf8": N_("The file is not UTF-8 text."),
    "graph_too_large": N_("The file is larger than %(limit)s bytes."),
    "graph_too_deep": N_("The file nests too deeply to be a flow."),
    # i18n: %(expected)s is a JSON type name: object, array, string, integer, boolean.
    "graph_wrong_type": N_("%(path)s should be a JSON %(expected)s."),
    "graph_unknown_key": N_("%(path)s is not part of a flow."),
    "graph_missing_key": N_("%(path)s is missing."),
    "graph_list_too_long": N_("%(path)s has more than %(limit)s items."),
    "graph_string_too_long": N_("%(path)s is longer than %(limit)s characters."),
    "graph_number_out_of_range": N_("%(path)s is out of range."),
    "graph_bad_amount": N_("%(path)s must be an amount written as a string, such as “2000.00”."),
    "graph_format_unsupported": N_(
        "This file uses flow format %(format)s, which cannot be read here."
    ),
    # flow validator, rule 0: well-formed
    "too_large": N_(
        "A flow may have at most %(states)s states, %(transitions)s transitions, "
        "%(grants)s grants and %(fields)s fields."
    ),
    "flow_kind_invalid": N_(
        "The flow kind “%(kind)s” must be lower-case letters, digits and underscores, starting with a letter."
    ),
    "posting_order_unknown": N_("The posting order must be accrual_first or payout_first."),
    "label_en_missing": N_("An English label is required."),
    "label_locale_unsupported": N_("“%(locale)s” is not a supported language for labels."),
    "label_too_long": N_("Labels are at most %(limit)s characters."),
    "field_key_invalid": N_(
        "The field key “%(key)s” must be lower-case letters, digits and underscores, starting with a letter."
    ),
    "field_key_duplicate": N_("Two fields have the key “%(key)s”."),
    "field_type_unknown": N_(
        "“%(type)s” is not a field type (text, number, money, date, choice or bool)."
    ),
    "field_choices_missing": N_("The choice field “%(key)s” needs at least one choice."),
    "field_choices_unexpected": N_("Only a choice field has choices, and “%(key)s” is not one."),
    "choice_key_invalid": N_(
        "The choice key “%(key)s” must be lower-case letters, digits and underscores, starting with a letter."
    ),
    "choice_key_duplicate": N_("Two choices have the key “%(key)s”."),
    "state_key_invalid": N_(
        "The state key “%(key)s” must be lower-case letters, digits and underscores, starting with a letter."
    ),
    "state_key_duplicate": N_("Two states have the key “%(key)s”."),
    "state_role_unknown": N_("“%(role)s” is not a state role."),
    "approval_unsupported": N_(
        "Only “any” approval is available: the first eligible member decides (“%(approval)s” was given)."
    ),
    "escalate_after_invalid": N_(
        "“%(value)s” is not a duration: write minutes, hours or days such as 30m, 48h or 3d "
        "(at least 5 minutes, at most a year)."
    ),
    "deadline_after_invalid": N_(
        "“%(value)s” is not a duration: write minutes, hours or days such as 30m, 48h or 3d "
        "(at least 5 minutes, at most a year)."
    ),
    "deadline_action_unknown": N_(
        "“%(action)s” is not a deadline action (remind, escalate_up, reassign or auto)."
    ),
    "deadline_transition_unknown": N_(
        "An automatic deadline on %(state)s must name a transition leaving %(state)s; “%(transition)s” does not."
    ),
    "deadline_transition_unexpected": N_(
        "Only an automatic deadline names a transition; this one is “%(action)s”."
    ),
    "transition_key_invalid": N_(
        "The action key “%(key)s” must be lower-case letters, digits and underscores, starting with a letter."
    ),
    "transition_state_unknown": N_("There is no state “%(state)s”."),
    "transition_self_loop": N_("A transition cannot leave and enter the same state (%(state)s)."),
    "transition_duplicate": N_(
        "Two transitions leave the same state with the same action: %(transition)s."
    ),
    "gate_unknown": N_("“%(gate)s” is not a gate (requester, target, source or advance)."),
    "comment_policy_unknown": N_(
        "The comment must be optional or required (“%(value)s” was given)."
    ),
    "grant_scope_invalid": N_("A grant names one state or covers all states: one of the two."),
    "grant_state_unknown": N_("The grant names the state “%(state)s”, which does not exist."),
    "grantee_kind_unknown": N_("“%(kind)s” is not a kind of grantee."),
    "grantee_ref_invalid": N_(
        "A %(kind)s grant names exactly the reference its kind needs, and no other."
    ),
    "levels_up_invalid": N_("Levels up must be between %(low)s and %(high)s."),
    "grantee_role_unknown": N_("“%(role)s” is not an organization role."),
    "grantee_member_unknown": N_(
        "The grant names a member (#%(member)s) who is not an active member of this organization."
    ),
    "grantee_position_unknown": N_(
        "The grant names a position (#%(position)s) that does not exist here or is retired."
    ),
    "floor_negative": N_("A floor cannot be negative (%(amount)s)."),
    "floor_currency_mismatch": N_(
        "Floors are in the organization's base currency, %(base)s; this one says “%(currency)s”."
    ),
    "floor_currency_without_amount": N_("The grant gives a currency but no amount."),
    "on_vacancy_unknown": N_("On vacancy must be escalate or refuse (“%(value)s” was given)."),
    "escalation_bound_invalid": N_(
        "The escalation bound must be between %(low)s and %(high)s levels."
    ),
    # flow validator, rules 1-8
    "initial_state_count": N_("A flow needs exactly one draft state; this one has %(count)s."),
    "no_terminal_state": N_("A flow needs at least one terminal state."),
    "state_unreachable": N_("%(state)s cannot be reached from the draft state."),
    "state_no_exit": N_("%(state)s is not terminal but has no way out."),
    "terminal_exit_not_dispute": N_(
        "%(state)s is terminal: it may only be left by raising a dispute."
    ),
    "accrual_on_cycle": N_(
        "%(state)s books an accrual on a loop without a rejection or cancellation: "
        "the money would be committed twice."
    ),
    "payout_on_cycle": N_(
        "%(state)s pays out on a loop without a rejection or cancellation: the money would leave twice."
    ),
    "accrual_repeated": N_(
        "A path from %(state)s passes two accrual states without a reversal between them."
    ),
    "payout_repeated": N_(
        "A path from %(state)s passes two payout states without a reversal between them."
    ),
    "payout_before_accrual": N_(
        "A path reaches %(state)s (payout) without an accrual first, but this flow books the accrual first."
    ),
    "accrual_before_payout": N_("This flow pays first, but an accrual comes before %(state)s."),
    "payout_without_accrual": N_(
        "This flow pays first, but a path from %(state)s ends at %(terminal)s without an accrual."
    ),
    "gate_without_grant": N_("Nobody may take %(transition)s: there is no grant on %(state)s."),
    "reversal_missing": N_(
        "%(transition)s leaves a state at or past an accrual, so it must reverse the accrual."
    ),
    "reverses_unexpected": N_(
        "%(transition)s is marked as reversing but does not enter a rejected or cancelled state."
    ),
    "advance_sibling_count": N_(
        "An advance gate needs exactly one target-gated transition leaving %(state)s; there are %(count)s."
    ),
    "bands_do_not_reach_zero": N_(
        "Every grant on %(state)s has a floor above zero, so a small amount could be approved by nobody."
    ),
    "comment_not_required": N_(
        "%(transition)s rejects, cancels or disputes, so it must require a comment."
    ),
    "auto_transition_posts": N_(
        "A deadline may not fire %(transition)s by itself: it commits or pays money, which needs a person."
    ),
    "grant_unused": N_("This grant on %(state)s authorises no transition."),
    "grant_duplicate": N_("This grant repeats an earlier one."),
    "deadline_without_tasks": N_(
        "%(state)s has a deadline, but no approver acts there, so nothing ever falls due."
    ),
    # guard language
    "guard_empty": N_("The guard is empty (column %(column)s)."),
    "guard_too_long": N_("The guard is longer than %(limit)s characters (column %(column)s)."),
    "guard_too_deep": N_("The guard nests more than %(limit)s levels deep at column %(column)s."),
    "guard_unexpected_character": N_("Unexpected character “%(char)s” at column %(column)s."),
    "guard_unterminated_string": N_("The text starting at column %(column)s has no closing quote."),
    "guard_string_too_long": N_(
        "The text starting at column %(column)s is longer than %(limit)s characters."
    ),
    "guard_bad_number": N_(
        "“%(text)s” at column %(column)s is not a number; write digits with an optional decimal point, such as 12.50."
    ),
    "guard_unexpected_token": N_("Unexpected “%(token)s” at column %(column)s."),
    "guard_unexpected_end": N_("The guard stops before it is complete (column %(column)s)."),
    "guard_unknown_name": N_(
        "“%(name)s” at column %(column)s is not something a guard can read; use a document. or principal. path."
    ),
    "guard_chained_comparison": N_(
        "Comparisons cannot be chained (column %(column)s); join them with “and”."
    ),
    "guard_list_too_long": N_("The list has more than %(limit)s items (column %(column)s)."),
    "guard_type_error": N_(
        "“%(operator)s” at column %(column)s cannot combine %(left)s and %(right)s."
    ),
    "guard_operand_type": N_("“%(operator)s” at column %(column)s cannot be applied to %(type)s."),
    "guard_division_by_zero": N_("The guard divides by zero at column %(column)s."),
    "guard_overflow": N_("The calculation at column %(column)s is out of range."),
    "guard_missing_value": N_(
        "The guard reads “%(path)s” (column %(column)s), but no value for it was given."
    ),
    "guard_unsupported_value": N_(
        "The guard cannot use the value of “%(path)s” (column %(column)s)."
    ),
    "guard_unknown_path": N_(
        "The guard reads “%(path)s”, which this flow does not declare (column %(column)s)."
    ),
    "guard_type_mismatch": N_(
        "“%(operator)s” at column %(column)s compares or combines %(left)s with %(right)s, which never match."
    ),
    "guard_not_boolean": N_(
        "The guard must be true or false, but the expression at column %(column)s gives %(type)s."
    ),
}
