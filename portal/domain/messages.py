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
}
