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
    "login_protected": N_plural(
        "This account is protected for a while after repeated failed sign-ins. From a device "
        "you have signed in with before, you can sign in as usual; or give a code from your "
        "authenticator app with your password; or try again in %(num)s minute.",
        "This account is protected for a while after repeated failed sign-ins. From a device "
        "you have signed in with before, you can sign in as usual; or give a code from your "
        "authenticator app with your password; or try again in %(num)s minutes.",
    ),
    "invalid_code": N_("That code is not right, or was used already. Try the newest one."),
    "sign_in_expired": N_("That sign-in took too long. Please start again."),
    "wrong_password": N_("That is not your current password."),
    "password_too_short": N_("Use at least %(min)s characters."),
    "password_too_long": N_("Use at most %(max)s characters."),
    "password_is_email": N_("Your password cannot be your email address."),
    "reset_throttled": N_plural(
        "Too many requests from here. Try again in %(num)s minute.",
        "Too many requests from here. Try again in %(num)s minutes.",
    ),
    "reset_link_invalid": N_(
        "This link to choose a new password has expired, was used already, or was replaced by "
        "a newer one. Ask for a new link."
    ),
    # invitations
    "invitation_invalid": N_(
        "This invitation link is not valid: it may have been replaced by a newer invitation. "
        "Use the link in the most recent mail, or ask an admin to send it again."
    ),
    "organization_closed": N_(
        "This organization is closed; its invitations can no longer be used."
    ),
    "invitation_used": N_("This invitation was accepted already. Sign in to continue."),
    "invitation_revoked": N_("This invitation was withdrawn. Ask an admin if you should join."),
    "invitation_expired": N_("This invitation has expired. Ask an admin to send it again."),
    "invitation_has_account": N_(
        "This address already has an account: sign in with it to accept the invitation."
    ),
    "invitation_other_account": N_(
        "This invitation is for %(email)s, but you are signed in as %(current)s. Sign out, "
        "then open the link again."
    ),
    "already_invited": N_("%(email)s was invited a moment ago by someone else."),
    "resent_just_now": N_("The invitation to %(email)s was sent a moment ago. Wait a minute."),
    "member_inactive_invite": N_(
        "%(email)s is a member whose membership is deactivated: reactivate it instead."
    ),
    "member_left": N_(
        "This person left the organization; only a new invitation, which they accept, brings "
        "them back."
    ),
    # the account itself
    "last_admin_leaving": N_(
        "You are the organization's only admin: make someone else an admin before you leave."
    ),
    "two_factor_needed_first": N_(
        "Turn on two-factor sign-in for your own account first, so you are not locked out."
    ),
    "two_factor_already_on": N_("Two-factor sign-in is already on."),
    "two_factor_not_started": N_("Start setting up two-factor sign-in first."),
    "two_factor_not_on": N_("Two-factor sign-in is not on."),
    "admin_two_factor_required": N_(
        "This organization asks its admins to use two-factor sign-in. Turn it on to continue."
    ),
    # organizations and members
    "invalid_slug": N_("Use 2–63 lower-case letters, digits or hyphens, starting with a letter."),
    "duplicate_slug": N_("An organization with the address “%(slug)s” already exists."),
    "invalid_currency": N_("“%(currency)s” is not a three-letter ISO 4217 currency code."),
    "unsupported_locale": N_("“%(locale)s” is not a supported language."),
    # time zones and formats (an organization's settings, a member's own zone)
    "invalid_time_zone": N_("“%(zone)s” is not a time zone. Choose one from the list."),
    "invalid_territory": N_("“%(territory)s” is not a country code we know (for example MY)."),
    # i18n: the reminder before a deadline, on the organization's settings page.
    "invalid_reminder_lead": N_(
        "Write the time before the deadline as a duration such as 4h, 90m, 1d or 1:30, "
        "at most %(days)s days; 0 or nothing sends no reminder before the deadline."
    ),
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
