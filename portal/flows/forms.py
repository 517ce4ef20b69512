"""Flow admin forms: the revision a button acts on, and the JSON import."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import HiddenField, IntegerField
from wtforms.validators import InputRequired, NumberRange


class RevisionForm(FlaskForm):
    """Publish and discard name the draft revision the admin was looking at."""

    revision = IntegerField(validators=[InputRequired(), NumberRange(min=0)])


class ImportForm(FlaskForm):
    # i18n: the file an admin uploads is a flow exported as JSON.
    file = FileField(_l("Flow file (JSON)"), validators=[FileRequired()])
    revision = HiddenField(default="0")
