"""Putting service refusals beside the form field they concern, and reading the whole
numbers forms and query strings carry (ASCII digits only: ``int()`` also reads "١٢",
"1_000" and " 12 ")."""

from __future__ import annotations

from typing import Any

from flask import request
from flask_wtf import FlaskForm
from wtforms import IntegerField

from portal.domain.errors import DomainError
from portal.domain.text_input import MAX_ID, is_id, whole_number
from portal.web.messages import message_for


def optional_id(value: object) -> int | None:
    """A select's coerce for a row id: None for no choice; ValueError (the field's own
    "not a valid choice") for anything that could not name a row."""
    if value in (None, "", "None"):
        return None
    text = str(value)
    if not is_id(text):
        raise ValueError("not an id")
    return int(text)


def query_id(name: str) -> int | None:
    """The id in the query string under ``name``, or None when there is none that could
    name a row (a page prefilled from a link ignores a bad one)."""
    raw = request.args.get(name, "")
    return int(raw) if is_id(raw) else None


def query_page(name: str = "page", maximum: int = 100_000) -> int:
    """The page number asked for in the query string; the first page when none is."""
    raw = request.args.get(name)
    return 1 if raw is None else whole_number(raw, field=name, minimum=1, maximum=maximum)


class WholeNumberField(IntegerField):
    """An integer input that reads ASCII digits only, from 0 up to ``maximum``."""

    def __init__(self, *args: Any, maximum: int = MAX_ID, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.maximum = maximum

    def process_formdata(self, valuelist: list[str]) -> None:
        if not valuelist or valuelist[0] == "":
            self.data = None
            return
        try:
            self.data = whole_number(valuelist[0], field=self.name, maximum=self.maximum)
        except DomainError as error:
            self.data = None
            raise ValueError(message_for(error)) from None


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
