"""A document's own values, checked: its title and the fields its flow declares.

Every problem is found at once (``FieldErrors`` carries them all); nothing is saved
while one stands. Values are stored as JSON: numbers as exact decimal strings, never
floats.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

from portal.domain.errors import DomainError
from portal.domain.graph import DocumentField, FieldType, Graph
from portal.domain.money import check_amount, check_number, parse_amount

MAX_TEXT_FIELD = 2000
MAX_TITLE = 200


class FieldErrors(DomainError):
    """Several fields of one document are wrong; nothing was saved."""

    def __init__(self, errors: list[DomainError]) -> None:
        super().__init__("invalid_fields", num=len(errors))
        self.errors = errors


_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _field_value(spec: DocumentField, value: object, currency: str) -> object:
    """One declared field's value, as stored (JSON): refusals name the field. A money
    field is an amount of ``currency`` (the document's)."""
    where = f"fields.{spec.key}"
    label = spec.labels.get("en") or spec.key
    if spec.type == FieldType.TEXT:
        if not isinstance(value, str):
            raise DomainError("field_not_text", field=where, label=label)
        if len(value) > MAX_TEXT_FIELD:
            raise DomainError("field_too_long", field=where, label=label, limit=MAX_TEXT_FIELD)
        return value.strip()
    if spec.type in (FieldType.NUMBER, FieldType.MONEY):
        try:
            number = parse_amount(value, field=where)
        except DomainError:
            raise DomainError("field_not_number", field=where, label=label) from None
        if spec.type == FieldType.MONEY:
            number = check_amount(number, currency, field=where)
        else:
            number = check_number(number, field=where, label=label)
        return format(number, "f")  # exact, never a float
    if spec.type == FieldType.DATE:
        text = str(value).strip()
        try:
            if not _ISO_DATE.fullmatch(text):
                raise ValueError(text)
            date.fromisoformat(text)
        except ValueError:
            raise DomainError("field_not_date", field=where, label=label) from None
        return text
    if spec.type == FieldType.CHOICE:
        keys = [c.key for c in spec.choices]
        if value not in keys:
            raise DomainError("field_not_choice", field=where, label=label)
        return value
    if spec.type == FieldType.BOOL:
        if value in (True, "true", "on", "1", "yes"):
            return True
        if value in (False, "false", "off", "0", "no"):
            return False
        raise DomainError("field_not_bool", field=where, label=label)
    raise DomainError("field_unknown", field=where, key=spec.key)  # pragma: no cover


def check_fields(graph: Graph, values: Mapping[str, object], *, currency: str) -> dict[str, object]:
    """The declared fields, checked and normalised; every problem at once. Money fields
    are amounts of ``currency``."""
    errors: list[DomainError] = []
    out: dict[str, object] = {}
    declared = {f.key: f for f in graph.fields}
    for key in values:
        if key not in declared:
            errors.append(DomainError("field_unknown", field=f"fields.{key}", key=str(key)[:63]))
    for key, spec in declared.items():
        value = values.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if spec.required:
                label = spec.labels.get("en") or key
                errors.append(DomainError("field_required", field=f"fields.{key}", label=label))
            continue
        try:
            out[key] = _field_value(spec, value, currency)
        except DomainError as error:
            errors.append(error)
    if errors:
        raise FieldErrors(errors)
    return out


def check_title(title: str) -> str:
    """The title with its runs of whitespace made one space; required, bounded."""
    cleaned = " ".join(title.split())
    if not cleaned:
        raise DomainError("title_required", field="title")
    if len(cleaned) > MAX_TITLE:
        raise DomainError("title_too_long", field="title", limit=MAX_TITLE)
    return cleaned
