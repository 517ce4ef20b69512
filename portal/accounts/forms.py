"""Forms for sign-in, the account page, invitations and member administration."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, HiddenField, PasswordField, SelectField, StringField
from wtforms.fields import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, ValidationError

from portal.config import SUPPORTED_LOCALES
from portal.domain.credentials import MAX_PASSWORD
from portal.domain.errors import DomainError
from portal.domain.time_zones import check_time_zone
from portal.web.messages import message_for

_ROLES = ("admin", "auditor")


class LoginForm(FlaskForm):
    email = EmailField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)])
    # Shown when the account is paused after failures: the code goes with the password.
    code = StringField(_l("Authentication code"), validators=[Length(max=40)])
    next = HiddenField()


class CodeForm(FlaskForm):
    """The second step of signing in, and every confirmation by code."""

    code = StringField(
        _l("Authentication code"),
        validators=[DataRequired(), Length(max=40)],
        render_kw={"inputmode": "text", "autocomplete": "one-time-code", "spellcheck": "false"},
    )
    next = HiddenField()


class LocaleForm(FlaskForm):
    locale = SelectField(
        _l("Language"), choices=[SelectChoice(code, code) for code in SUPPORTED_LOCALES]
    )
    next = HiddenField()


class _Roles:
    admin = BooleanField(_l("Admin — manages members, the org chart and flows"))
    auditor = BooleanField(_l("Auditor — reads every document's history"))

    def roles(self) -> list[str]:
        return [role for role in _ROLES if getattr(self, role).data]


class InviteForm(_Roles, FlaskForm):
    email = EmailField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    name = StringField(_l("Full name"), validators=[DataRequired(), Length(max=200)])


class RolesForm(_Roles, FlaskForm):
    pass


class ConfirmForm(FlaskForm):
    """An empty form: a POST button that carries only the CSRF token."""


class _NewPassword:
    new_password = PasswordField(
        _l("New password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)]
    )
    confirm_password = PasswordField(
        _l("New password again"),
        validators=[
            DataRequired(),
            EqualTo("new_password", message=_l("The two passwords are not the same.")),
        ],
    )


class JoinForm(_NewPassword, FlaskForm):
    """Accepting an invitation with a new account: the person's name and password."""

    name = StringField(_l("Your name"), validators=[DataRequired(), Length(max=200)])


class ChangePasswordForm(_NewPassword, FlaskForm):
    current_password = PasswordField(
        _l("Current password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)]
    )


class ResetPasswordForm(_NewPassword, FlaskForm):
    pass


class ForgotPasswordForm(FlaskForm):
    email = EmailField(_l("Email"), validators=[DataRequired(), Length(max=254)])


class ProfileForm(FlaskForm):
    name = StringField(_l("Your name"), validators=[DataRequired(), Length(max=200)])


class PasswordForm(FlaskForm):
    """A step that needs the password again (starting two-factor sign-in)."""

    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)])


class DisableTwoFactorForm(FlaskForm):
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)])
    code = StringField(
        _l("Authentication code or recovery code"),
        validators=[DataRequired(), Length(max=40)],
        render_kw={"autocomplete": "one-time-code"},
    )


class OrganizationSettingsForm(FlaskForm):
    require_admin_two_factor = BooleanField(
        _l("Admins must use two-factor sign-in to reach the admin pages")
    )


class OrganizationProfileForm(FlaskForm):
    """An organization's settings. The choices are checked by the service (which names
    a bad zone or country), not by the select, so every refusal reads the same."""

    name = StringField(_l("Name"), validators=[DataRequired(), Length(max=200)])
    default_locale = SelectField(
        _l("Default language"),
        choices=[SelectChoice(code, code) for code in SUPPORTED_LOCALES],
        validate_choice=False,
    )
    time_zone = SelectField(_l("Time zone"), validate_choice=False)
    territory = SelectField(_l("Country for dates and money"), validate_choice=False)
    # Checked by the service ("4h", "1:30", "0"), which names what it accepts.
    reminder_lead = StringField(_l("Remind before a deadline"), validators=[Length(max=100)])


class MyTimeZoneForm(FlaskForm):
    # "" follows the organization's zone.
    time_zone = SelectField(_l("Your time zone here"), validate_choice=False)

    def validate_time_zone(self, field: SelectField) -> None:
        # Judged here, so a refused zone costs the page one service call, not two.
        if field.data:
            try:
                field.data = check_time_zone(field.data)
            except DomainError as error:
                raise ValidationError(message_for(error)) from None
