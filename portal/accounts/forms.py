"""Forms for sign-in, the language picker and member administration."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, HiddenField, PasswordField, SelectField, StringField
from wtforms.fields import SelectChoice
from wtforms.validators import DataRequired, Length

from portal.config import SUPPORTED_LOCALES


class LoginForm(FlaskForm):
    email = EmailField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=1024)])
    next = HiddenField()


class LocaleForm(FlaskForm):
    locale = SelectField(
        _l("Language"), choices=[SelectChoice(code, code) for code in SUPPORTED_LOCALES]
    )
    next = HiddenField()


class MemberForm(FlaskForm):
    email = EmailField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    name = StringField(_l("Full name"), validators=[DataRequired(), Length(max=200)])
    admin = BooleanField(_l("Admin — manages members, the org chart and flows"))
    auditor = BooleanField(_l("Auditor — reads every document's history"))

    def roles(self) -> list[str]:
        return [role for role in ("admin", "auditor") if getattr(self, role).data]


class RolesForm(FlaskForm):
    admin = BooleanField(_l("Admin — manages members, the org chart and flows"))
    auditor = BooleanField(_l("Auditor — reads every document's history"))

    def roles(self) -> list[str]:
        return [role for role in ("admin", "auditor") if getattr(self, role).data]


class ConfirmForm(FlaskForm):
    """An empty form: a POST button that carries only the CSRF token."""
