"""Flow admin forms: the revision a button acts on, the JSON import, and the "Who would
approve?" query."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import DateField, HiddenField, IntegerField, SelectField, StringField
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    ValidationError,
)

from portal.domain.errors import DomainError
from portal.domain.money import parse_amount


class RevisionForm(FlaskForm):
    """Publish and discard name the draft revision the admin was looking at."""

    revision = IntegerField(validators=[InputRequired(), NumberRange(min=0)])


class ImportForm(FlaskForm):
    # i18n: the file an admin uploads is a flow exported as JSON.
    file = FileField(_l("Flow file (JSON)"), validators=[FileRequired()])
    revision = HiddenField(default="0")


def _whole_number(value: object) -> int | None:
    return None if value in (None, "", "None") else int(str(value))


class RoutePreviewForm(FlaskForm):
    """The routing preview's inputs, read from the query string (GET: nothing changes)."""

    class Meta:
        csrf = False

    kind = SelectField(_l("Flow"), validators=[DataRequired()], validate_choice=False)
    # Any whole number: the service answers "pick a member" for one that is not.
    member_id = SelectField(
        _l("Requester"), coerce=_whole_number, validators=[DataRequired()], validate_choice=False
    )
    amount = StringField(_l("Amount"), validators=[DataRequired()])
    currency = StringField(_l("Currency"), validators=[Length(max=8)])
    as_of = DateField(_l("As of"), validators=[Optional()])

    def validate_kind(self, field: SelectField) -> None:
        # PostgreSQL refuses a NUL in any text it is asked to compare: no flow has one.
        if "\x00" in field.data:
            kind = field.data.replace("\x00", "")[:64]
            raise ValidationError(_l("There is no published flow “%(kind)s”.", kind=kind))

    def validate_amount(self, field: StringField) -> None:
        # People type thousands separators; the service checks sign and precision.
        try:
            self.amount_value = parse_amount(field.data or "")
        except DomainError:
            raise ValidationError(_l("Enter an amount such as 1250.00.")) from None
