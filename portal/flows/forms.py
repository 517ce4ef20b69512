"""Flow admin forms: the revision a button acts on, the JSON import, and the "Who would
approve?" query."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import DateField, HiddenField, SelectField, StringField
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    Optional,
    ValidationError,
)

from portal.domain.errors import DomainError
from portal.domain.money import parse_amount
from portal.domain.text_input import is_id
from portal.web.forms import WholeNumberField
from portal.web.messages import message_for
from portal.web.money_input import number_form, reader_locale


class RevisionForm(FlaskForm):
    """Publish and discard name the draft revision the admin was looking at."""

    revision = WholeNumberField(validators=[InputRequired()])


class ImportForm(FlaskForm):
    # i18n: the file an admin uploads is a flow exported as JSON.
    file = FileField(_l("Flow file (JSON)"), validators=[FileRequired()])
    revision = HiddenField(default="0")


def _member_id(value: object) -> int | None:
    """Any whole number: the service answers "pick a member" for one naming nobody (one
    beyond every id is read as -1, which names nobody either)."""
    if value in (None, "", "None"):
        return None
    text = str(value)
    if not (text.isascii() and text.isdigit()):
        raise ValueError("not a whole number")
    return int(text) if is_id(text) else -1


class RoutePreviewForm(FlaskForm):
    """The routing preview's inputs, read from the query string (GET: nothing changes)."""

    class Meta:
        csrf = False

    kind = SelectField(_l("Flow"), validators=[DataRequired()], validate_choice=False)
    # Any whole number: the service answers "pick a member" for one that is not.
    member_id = SelectField(
        _l("Requester"), coerce=_member_id, validators=[DataRequired()], validate_choice=False
    )
    amount = StringField(_l("Amount"), validators=[DataRequired()])
    currency = StringField(_l("Currency"), validators=[Length(max=8)])
    as_of = DateField(_l("As of"), validators=[Optional()])

    def validate_amount(self, field: StringField) -> None:
        # Read as the admin writes amounts (grouping and all, strictly); the service
        # checks sign, size and the currency's decimals.
        typed = (self.currency.data or "").strip().upper()
        currency = typed if len(typed) == 3 and typed.isascii() and typed.isalpha() else None
        try:
            self.amount_value = parse_amount(
                field.data or "", number_form(reader_locale(), currency)
            )
        except DomainError as error:
            raise ValidationError(message_for(error)) from None
