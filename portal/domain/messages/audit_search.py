"""The audit search and its exports: what a filter value or an export is refused for.

Each search refusal stands beside its field; the value is left out and the rest of the
search still applies, which every message says in its own way."""

from __future__ import annotations

from portal.domain.messages.markers import N_, N_plural

AUDIT_SEARCH: dict[str, str | tuple[str, str]] = {
    "audit_key_unknown": N_("Choose one of the listed options; this value was left out."),
    "audit_member_unknown": N_("Choose a member from the list; this value was left out."),
    "audit_day_invalid": N_(
        "Write a day as YYYY-MM-DD, for example 2026-12-05; this day was left out."
    ),
    # i18n: %(example)s is an amount as it must be written, e.g. 1234.50.
    "audit_amount_invalid": N_(
        "Write an amount with the digits 0–9 and a point for decimals, for example %(example)s; this amount was left out."
    ),
    "audit_amount_negative": N_("An amount cannot be below zero; this amount was left out."),
    "audit_amount_too_large": N_("An amount must be below %(limit)s; this amount was left out."),
    "audit_amount_too_precise": N_(
        "An amount has at most %(num)s decimals; this amount was left out."
    ),
    "audit_value_too_long": N_(
        "This is longer than %(limit)s characters; it was left out of the search."
    ),
    # i18n: %(start)s and %(end)s are days written YYYY-MM-DD.
    "audit_dates_reversed": N_(
        "The range ends (%(end)s) before it starts (%(start)s), so it was left out. Swap the two days or change one."
    ),
    # i18n: %(start)s and %(end)s are amounts.
    "audit_amounts_reversed": N_(
        "The largest amount (%(end)s) is below the smallest (%(start)s), so the range was left out. Swap the two amounts or change one."
    ),
    # i18n: %(key)s is the sort the link asked for, as it was written.
    "audit_sort_unknown": N_(
        "The results cannot be sorted by “%(key)s”: they are shown newest first."
    ),
    "audit_page_invalid": N_(
        "A page is a whole number from 1 to %(max)s written with the digits 0–9: the first page is shown."
    ),
    "audit_page_past_end": N_plural(
        "There is no page %(page)s: these results fill %(num)s page.",
        "There is no page %(page)s: these results fill %(num)s pages.",
    ),
    "audit_export_too_large": N_(
        "This export would hold %(num)s documents; at most %(limit)s can be exported at once. Narrow the search (a shorter date range, one kind, one state or an amount range) and export again."
    ),
    "audit_export_bad_filter": N_(
        "Nothing was exported: part of the search could not be read. Correct it on the search page, then export again."
    ),
}
