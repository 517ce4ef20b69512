"""Sign-in, organizations, members, invitations and the account itself."""

from __future__ import annotations

from portal.domain.messages.markers import N_, N_plural

ACCOUNTS: dict[str, str | tuple[str, str]] = {
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
}
