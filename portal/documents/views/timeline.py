"""The document page's history in words: each edit's changes with their labels, and
their values ready for the page's filters (amounts as Decimals for ``money``, choices by
their label). No routes."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _

from portal.documents.queries.detail import HistoryEntry
from portal.documents.queries.history import Change, EditEntry
from portal.domain.graph import DocumentField, FieldType, Graph


@dataclass(frozen=True)
class ChangeLine:
    label: str
    # How the values are shown: money, date, bool, long (folded), text.
    kind: str
    old: object
    new: object


def timeline_rows(
    timeline: list[HistoryEntry | EditEntry], graph: Graph, locale: str
) -> list[tuple[HistoryEntry | EditEntry, list[ChangeLine]]]:
    """Each entry with the lines it shows: none for a decision, one per change for an
    edit."""
    fields = {f.key: f for f in graph.fields}
    return [
        (
            entry,
            [_line(c, fields, locale) for c in entry.changes]
            if isinstance(entry, EditEntry)
            else [],
        )
        for entry in timeline
    ]


def _line(change: Change, fields: dict[str, DocumentField], locale: str) -> ChangeLine:
    if change.field == "amount":
        return ChangeLine(_("Amount"), "money", _money(change.old), _money(change.new))
    if change.field == "title":
        return ChangeLine(_("Title"), "text", change.old, change.new)
    if change.field == "description":
        return ChangeLine(_("Description"), "long", change.old, change.new)
    key = change.field.removeprefix("fields.")
    spec = fields.get(key)
    if spec is None:  # a field the pinned flow does not declare: said as recorded
        return ChangeLine(key, "text", change.old, change.new)
    label = spec.labels.text(locale) or key
    if spec.type == FieldType.MONEY:
        return ChangeLine(label, "money", _money(change.old), _money(change.new))
    if spec.type == FieldType.CHOICE:
        names = {c.key: c.labels.text(locale) or c.key for c in spec.choices}
        return ChangeLine(label, "text", _choice(names, change.old), _choice(names, change.new))
    if spec.type == FieldType.BOOL:
        return ChangeLine(label, "bool", _flag(change.old), _flag(change.new))
    if spec.type == FieldType.DATE:
        return ChangeLine(label, "date", change.old, change.new)
    return ChangeLine(label, "text", change.old, change.new)


def _money(text: str | None) -> Decimal | str | None:
    """The recorded amount as a Decimal for the money filter; as recorded if it is not
    one (a hand-written row must not break the page)."""
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    return value if value.is_finite() else text


def _choice(names: dict[str, str], key: str | None) -> str | None:
    return None if key is None else names.get(key, key)


def _flag(text: str | None) -> bool | None:
    return None if text is None else text == "true"
