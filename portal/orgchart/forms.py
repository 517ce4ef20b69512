"""Org chart forms. Choices are filled by the view from the services."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import BooleanField, DateField, HiddenField, SelectField, StringField
from wtforms.fields import SelectChoice
from wtforms.validators import DataRequired, Length, Optional

from portal.web.forms import optional_id


class UnitForm(FlaskForm):
    code = StringField(_l("Code"), validators=[DataRequired(), Length(max=40)])
    name = StringField(_l("Name"), validators=[DataRequired(), Length(max=200)])
    parent_id = SelectField(_l("Parent unit"), coerce=optional_id, validate_choice=False)
    head_position_id = SelectField(_l("Head position"), coerce=optional_id, validate_choice=False)


class PositionForm(FlaskForm):
    code = StringField(_l("Code"), validators=[DataRequired(), Length(max=40)])
    title = StringField(_l("Title"), validators=[DataRequired(), Length(max=200)])
    unit_id = SelectField(
        _l("Unit"), coerce=optional_id, validators=[DataRequired()], validate_choice=False
    )
    reports_to_id = SelectField(_l("Reports to"), coerce=optional_id, validate_choice=False)
    active = BooleanField(_l("Active (a retired seat resolves to nobody)"), default=True)


class HoldingForm(FlaskForm):
    member_id = SelectField(
        _l("Member"), coerce=optional_id, validators=[DataRequired()], validate_choice=False
    )
    position_id = SelectField(
        _l("Position"), coerce=optional_id, validators=[DataRequired()], validate_choice=False
    )
    kind = SelectField(
        _l("Kind"),
        choices=[
            SelectChoice("primary", _l("Primary")),
            SelectChoice("secondary", _l("Secondary")),
        ],
    )
    valid_from = DateField(_l("From"), validators=[Optional()])
    valid_to = DateField(_l("Until (inclusive, optional)"), validators=[Optional()])


class EndHoldingForm(FlaskForm):
    last_day = DateField(_l("Last day"), validators=[Optional()])
    # The last day (ISO) the confirmation showed: the post ends the seat on that day only.
    confirm = HiddenField()


class ImportForm(FlaskForm):
    kind = SelectField(
        _l("What the file holds"),
        choices=[
            SelectChoice("units", _l("Units")),
            SelectChoice("positions", _l("Positions")),
            SelectChoice("members", _l("Members")),
        ],
    )
    file = FileField(_l("CSV file (UTF-8)"), validators=[FileRequired()])
