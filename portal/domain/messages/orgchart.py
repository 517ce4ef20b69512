"""The org chart and its CSV import."""

from __future__ import annotations

from portal.domain.messages.markers import N_, N_plural

ORGCHART: dict[str, str | tuple[str, str]] = {
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
    "member_left_import": N_(
        "%(email)s left the organization; invite them again from the members page."
    ),
    "import_crashed": N_("The import stopped on an error of ours. Nothing was imported."),
    "import_not_stalled": N_("That import is not stuck: it is waiting, running or finished."),
}
