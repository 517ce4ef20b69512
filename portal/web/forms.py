"""Putting service refusals beside the form field they concern."""

from __future__ import annotations

from flask_wtf import FlaskForm

from portal.domain.errors import DomainError
from portal.web.messages import message_for


def attach_error(form: FlaskForm, error: DomainError, *, default_field: str | None = None) -> None:
    """Show ``error`` beside its field, else beside ``default_field``, else above the form."""
    message = message_for(error)
    name = error.field or default_field
    field = getattr(form, name, None) if name else None
    if field is not None and hasattr(field, "errors"):
        # WTForms gives a tuple until validate() runs; make it a list we can extend.
        field.errors = [*field.errors, message]
    else:
        form.form_errors.append(message)
