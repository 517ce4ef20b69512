"""The document form: title, description and amount, then one input per field the
kind's flow declares. The flow decides the fields, so the form class is built per graph.

The form parses what the browser sends (an amount, a number, a date); whether a value
is allowed (required, one of the choices) is the service's to say. Amounts and numbers
are read as the reader writes them (``web.money_input``), strictly: the amount is also
checked against its currency here, so its refusal stands beside it with the others.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import lazy_pgettext as _lp
from flask_wtf import FlaskForm
from wtforms import BooleanField, DateField, SelectField, StringField, TextAreaField
from wtforms.fields import SelectChoice
from wtforms.validators import InputRequired

from portal.domain.errors import DomainError
from portal.domain.graph import DocumentField, FieldType, Graph
from portal.domain.money import check_amount, parse_amount
from portal.web.messages import message_for
from portal.web.money_input import input_text, number_form, number_text, reader_locale


def _not_a(code: str, label: object) -> str:
    # The same sentence the service would give, from the same catalog entry.
    return message_for(DomainError(code, label=str(label)))


class AmountField(StringField):
    """Typed as the reader writes amounts ("1,234.50" in English), held as a Decimal of
    ``currency`` at its decimals. Empty is None (InputRequired says so)."""

    def __init__(self, *args: Any, currency: str = "", locale: str = "en", **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.currency = currency
        self.locale = locale
        # 1234.50 as this reader writes it, for the hint beside the input.
        self.example = number_form(locale, currency or None).example

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist:
            return
        self.data = None
        if not str(valuelist[0]).strip():
            # Nothing typed (spaces are nothing): InputRequired says so.
            self.raw_data: list[Any] = []
            return
        form = number_form(self.locale, self.currency or None)
        try:
            self.data = check_amount(parse_amount(str(valuelist[0]), form), self.currency)
        except DomainError as error:
            raise ValueError(message_for(error)) from None

    def _value(self) -> str:
        if self.raw_data:
            return str(self.raw_data[0])  # what was typed, as typed
        if isinstance(self.data, Decimal):
            return input_text(self.data, self.currency, self.locale)
        return ""


class NumberInputField(StringField):
    """A declared number (or money) field: read as the reader writes numbers, held as
    a Decimal; its size and precision are the service's to judge."""

    # What the reader's typing is refused as, for a field rather than the amount.
    _REFUSALS = {"amount_ambiguous": "field_number_ambiguous"}

    def __init__(
        self,
        *args: Any,
        subject: str = "",
        currency: str | None = None,
        locale: str = "en",
        **kw: Any,
    ) -> None:
        super().__init__(*args, **kw)
        self.subject = subject  # the field's name in a sentence (its label, unmarked)
        self.currency = currency
        self.locale = locale

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist:
            return
        self.data = None
        if not str(valuelist[0]).strip():
            return
        try:
            self.data = parse_amount(str(valuelist[0]), number_form(self.locale, self.currency))
        except DomainError as error:
            code = self._REFUSALS.get(error.code, "field_number_invalid")
            refusal = DomainError(code, label=self.subject, example=error.params.get("example"))
            raise ValueError(message_for(refusal)) from None

    def _value(self) -> str:
        if self.raw_data:
            return str(self.raw_data[0])
        if self.data is None or self.data == "":
            return ""
        try:  # a saved value: exact decimal text
            number = parse_amount(self.data)
        except DomainError:
            return str(self.data)
        if self.currency:
            return input_text(number, self.currency, self.locale)
        return number_text(number, self.locale)


class OptionalDateField(DateField):
    """A date input that may be left empty (the service says whether it must not be)."""

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist or not " ".join(valuelist).strip():
            self.data = None
            return
        try:
            super().process_formdata(valuelist)
        except ValueError:
            raise ValueError(_not_a("field_not_date", self.label.text)) from None


class DocumentForm(FlaskForm):
    title = StringField(
        _lp("document", "Title"),
        render_kw={"maxlength": 200, "required": True, "aria-required": "true"},
    )
    description = TextAreaField(_l("Description"), render_kw={"rows": 4})
    amount = AmountField(
        _l("Amount"),
        validators=[InputRequired(message=_l("Enter the amount."))],
        render_kw={"inputmode": "decimal", "autocomplete": "off"},
    )


def input_name(key: str) -> str:
    """The form field for the declared field ``key`` (prefixed: a key such as
    ``title`` or ``data`` must not collide with the form's own names)."""
    return f"f_{key}"


def _label(spec: DocumentField, locale: str) -> str:
    text = spec.labels.text(locale) or spec.key
    # i18n: a form label followed by the mark that the field must be filled in
    return _("%(label)s (required)", label=text) if spec.required else text


def _input_for(spec: DocumentField, locale: str, currency: str, numbers: str):
    label = _label(spec, locale)
    kw: dict[str, Any] = {"required": True, "aria-required": "true"} if spec.required else {}
    if spec.type in (FieldType.NUMBER, FieldType.MONEY):
        return NumberInputField(
            label,
            subject=spec.labels.text(locale) or spec.key,
            currency=currency if spec.type == FieldType.MONEY else None,
            locale=numbers,
            render_kw={**kw, "inputmode": "decimal", "autocomplete": "off"},
        )
    if spec.type == FieldType.DATE:
        return OptionalDateField(label, render_kw=kw)
    if spec.type == FieldType.CHOICE:
        # i18n: the empty first entry of a drop-down list
        choices = [SelectChoice("", _("Choose…"))] + [
            SelectChoice(c.key, c.labels.text(locale)) for c in spec.choices
        ]
        # An unknown value is the service's to refuse (field_not_choice).
        return SelectField(label, choices=choices, validate_choice=False, render_kw=kw)
    if spec.type == FieldType.BOOL:
        return BooleanField(label)
    return StringField(label, render_kw={**kw, "maxlength": 2000})


def document_form(
    graph: Graph, locale: str, *, currency: str, data: dict[str, Any] | None = None
) -> DocumentForm:
    """A form for documents of ``graph``'s kind, with amounts in ``currency``; on POST it
    reads the request. Numbers are read in the reader's formatting locale."""

    numbers = reader_locale()

    class _Form(DocumentForm):
        amount = AmountField(
            _l("Amount"),
            validators=[InputRequired(message=_l("Enter the amount."))],
            currency=currency,
            locale=numbers,
            render_kw={"inputmode": "decimal", "autocomplete": "off"},
        )

    for spec in graph.fields:
        setattr(_Form, input_name(spec.key), _input_for(spec, locale, currency, numbers))
    form = _Form(data=data or {})
    # Marked like the flow's required fields, so every required input says so.
    for always in (form.title, form.amount):
        always.label.text = _("%(label)s (required)", label=always.label.text)
    return form


def declared_inputs(form: DocumentForm, graph: Graph) -> list[Any]:
    """The generated inputs, in the flow's order."""
    return [form[input_name(spec.key)] for spec in graph.fields]


def field_values(form: DocumentForm, graph: Graph) -> dict[str, object]:
    """The declared fields as the service takes them; an empty input is left out."""
    out: dict[str, object] = {}
    for spec in graph.fields:
        value = form[input_name(spec.key)].data
        if spec.type == FieldType.DATE:
            value = value.isoformat() if isinstance(value, date) else None
        elif spec.type in (FieldType.NUMBER, FieldType.MONEY):
            # The exact decimal text the service reads (never a float).
            value = format(value, "f") if isinstance(value, Decimal) else None
        elif spec.type == FieldType.BOOL:
            value = bool(value)
        elif isinstance(value, str) and not value.strip():
            value = None
        if value is not None:
            out[spec.key] = value
    return out


def initial_data(document: Any) -> dict[str, Any]:
    """A saved document, as the form's starting values."""
    data: dict[str, Any] = {
        "title": document.title,
        "description": document.description,
        "amount": document.amount,
    }
    for spec in document.graph.fields:
        value = document.fields.get(spec.key)
        if value is None:
            continue
        if spec.type == FieldType.DATE:
            try:
                value = date.fromisoformat(str(value))
            except ValueError:
                continue
        data[input_name(spec.key)] = value
    return data
