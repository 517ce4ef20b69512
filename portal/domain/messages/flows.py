"""Flow drafts and versions, flow files, the validator and the guard language."""

from __future__ import annotations

from portal.domain.messages.markers import N_, N_plural

FLOWS: dict[str, str | tuple[str, str]] = {
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
    "graph_duplicate_key": N_("The file names “%(key)s” twice in one object."),
    "graph_control_character": N_(
        "The file contains a control character (such as a NUL byte) in a text."
    ),
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
        "(at least 1 minute, at most a year)."
    ),
    "deadline_after_invalid": N_(
        "“%(value)s” is not a duration: write minutes, hours or days such as 30m, 48h or 3d "
        "(at least 1 minute, at most a year)."
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
    "grant_scope_invalid": N_("A grant applies to one state or to every state: choose one."),
    "grant_state_unknown": N_("The grant names the state “%(state)s”, which does not exist."),
    "grantee_kind_missing": N_("Choose who decides for this grant."),
    "grantee_kind_unknown": N_("“%(kind)s” is not a kind of approver."),
    "grantee_member_missing": N_("Choose the member who decides."),
    "grantee_position_missing": N_("Choose the seat whose holder decides."),
    "grantee_levels_missing": N_("Say how many seats above the requester decide."),
    "grantee_role_missing": N_("Choose the role whose members decide."),
    "grantee_ref_invalid": N_(
        "This grant names more people or seats than its kind of approver uses: "
        "choose who decides again."
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
        "Amounts here are in %(base)s, the organization's currency; this one is in “%(currency)s”."
    ),
    "floor_currency_missing": N_(
        "This floor has no currency: amounts here are in %(base)s, the organization's currency."
    ),
    "floor_too_precise": N_(
        "%(amount)s has more decimals than the currency allows (at most %(places)s)."
    ),
    "floor_currency_without_amount": N_("The grant gives a currency but no amount."),
    "on_vacancy_unknown": N_("On vacancy must be escalate or refuse (“%(value)s” was given)."),
    "escalation_bound_invalid": N_(
        "The escalation bound must be between %(low)s and %(high)s levels."
    ),
    # flow validator, rules 1-8
    "initial_state_count": N_(
        "A flow needs exactly one starting (draft) state; this one has %(count)s."
    ),
    "no_terminal_state": N_("A flow needs at least one state that ends it."),
    "state_unreachable": N_("%(state)s cannot be reached from the draft state."),
    "state_no_exit": N_("%(state)s does not end the flow, but no action leads out of it."),
    "terminal_exit_not_dispute": N_(
        "%(state)s ends the flow: the only way out of it is raising a dispute."
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
    "gate_without_grant": N_(
        "Nobody may take %(transition)s: say who decides on %(state)s (add a grant there)."
    ),
    "reversal_missing": N_(
        "%(transition)s leaves a state at or past an accrual, so it must reverse the accrual."
    ),
    "reverses_unexpected": N_(
        "%(transition)s is marked as reversing but does not enter a rejected or cancelled state."
    ),
    "advance_sibling_count": N_(
        "Who may reject at %(state)s is whoever may approve there, so %(state)s needs "
        "exactly one approving action; it has %(count)s."
    ),
    "bands_do_not_reach_zero": N_(
        "Every grant on %(state)s starts above zero, so a small amount would have nobody to "
        "approve it: add a grant from 0."
    ),
    "comment_not_required": N_(
        "%(transition)s rejects, cancels or disputes, so it must require a comment."
    ),
    "auto_transition_posts": N_(
        "A deadline may not fire %(transition)s by itself: it commits or pays money, which needs a person."
    ),
    "grant_unused": N_("This grant on %(state)s lets nobody do anything: no action there uses it."),
    "grant_duplicate": N_("This grant says the same as an earlier one on the same state."),
    "deadline_without_tasks": N_(
        "%(state)s has a deadline, but no approver acts there, so nothing ever falls due."
    ),
    # exclusive approval against the org chart. %(deciders)s: names of people;
    # %(other)s: the keys of the other steps that need them; %(requester)s: a name.
    "exclusive_approval_unstaffed": N_plural(
        "Under exclusive approval, documents from %(requester)s would be stuck at “%(state)s”: the only people who may decide it (%(deciders)s) are also needed at “%(other)s”, and nobody may decide two steps of one document. Put other people on one of these steps, or turn exclusive approval off.",
        "Under exclusive approval, documents from %(num)s requesters would be stuck at “%(state)s” — from %(requester)s, for one: the only people who may decide it (%(deciders)s) are also needed at “%(other)s”, and nobody may decide two steps of one document. Put other people on one of these steps, or turn exclusive approval off.",
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
