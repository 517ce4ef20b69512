"""A graph read from JSON text or parsed JSON data, checking its shape only.

The loader checks types, required and unknown keys, and names the path of the first
problem, e.g. ``transitions[3].gate``. It deliberately accepts values that are
well-typed but wrong (an unknown gate, a key with capitals, a negative floor): a draft
may be invalid, and the validator reports those next to the element.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from portal.domain.errors import DomainError
from portal.domain.graph import (
    MAX_TRANSITIONS,
    Choice,
    Deadline,
    DocumentField,
    Grant,
    Grantee,
    Graph,
    State,
    Transition,
    TransitionGuard,
)
from portal.domain.graph_json.writer import FORMAT
from portal.domain.labels import Labels
from portal.domain.text_input import JsonRefused, loads_strict

# Loader limits, far above any legitimate graph: they bound the cost of hostile input.
MAX_DOCUMENT_BYTES = 1_000_000
MAX_STRING = 2_000
MAX_LIST = 4 * MAX_TRANSITIONS


class GraphFormatError(DomainError):
    """The document is not a flow graph: not JSON, or the wrong shape somewhere.

    ``path`` names the place, e.g. ``transitions[3].gate`` ("" for the whole document).
    """

    def __init__(self, code: str, /, path: str = "", **params: Any) -> None:
        super().__init__(code, path=path or "$", **params)
        self.path = path


def loads(text: str | bytes) -> Graph:
    """Parse a graph document. Raises GraphFormatError only."""
    if isinstance(text, bytes):
        if len(text) > MAX_DOCUMENT_BYTES:
            raise GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise GraphFormatError("graph_not_utf8") from None
    if len(text.encode("utf-8", "surrogatepass")) > MAX_DOCUMENT_BYTES:
        raise GraphFormatError("graph_too_large", limit=MAX_DOCUMENT_BYTES)
    try:
        # The one strict reader: no key twice, no NaN, strings without control characters.
        data = loads_strict(text)
    except JsonRefused as refused:
        code = {"json_too_deep": "graph_too_deep", "json_duplicate_key": "graph_duplicate_key"}
        raise GraphFormatError(code.get(refused.code, "graph_not_json"), **refused.params) from None
    except DomainError as refused:  # a string with a control character
        raise GraphFormatError("graph_control_character") from refused
    return from_json(data)


_MISSING = object()


class _Reader:
    """Reads one JSON object, checking each value's type and naming its path."""

    def __init__(
        self, data: object, path: str, required: tuple[str, ...], optional: tuple[str, ...]
    ) -> None:
        if not isinstance(data, dict):
            raise GraphFormatError("graph_wrong_type", path, expected="object")
        for key in data:
            if key not in required and key not in optional:
                # The refusal quotes the key, so it must be printable text itself.
                raise GraphFormatError("graph_unknown_key", _join(path, _encodable(key, path)))
        for key in required:
            if key not in data:
                raise GraphFormatError("graph_missing_key", _join(path, key))
        self.data: dict[object, object] = data
        self.path = path

    def at(self, key: str) -> str:
        return _join(self.path, key)

    def raw(self, key: str) -> object:
        return self.data.get(key, _MISSING)

    def string(self, key: str) -> str | None:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return None
        return _string(value, self.at(key))

    def boolean(self, key: str) -> bool | None:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return None
        if not isinstance(value, bool):
            raise GraphFormatError("graph_wrong_type", self.at(key), expected="boolean")
        return value

    def integer(self, key: str) -> int | None:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return None
        return _integer(value, self.at(key))

    def coordinate(self, key: str) -> int:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return 0
        return _coordinate(value, self.at(key))

    def labels(self, key: str) -> Labels:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return Labels()
        return _labels(value, self.at(key))

    def items(self, key: str) -> list[tuple[object, str]]:
        value = self.raw(key)
        if value is _MISSING or value is None:
            return []
        path = self.at(key)
        if not isinstance(value, list):
            raise GraphFormatError("graph_wrong_type", path, expected="array")
        if len(value) > MAX_LIST:
            raise GraphFormatError("graph_list_too_long", path, limit=MAX_LIST)
        return [(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise GraphFormatError("graph_wrong_type", path, expected="string")
    if len(value) > MAX_STRING:
        raise GraphFormatError("graph_string_too_long", path, limit=MAX_STRING)
    return _encodable(value, path)


def _encodable(value: str, path: str) -> str:
    # "\ud800" is valid JSON, but the lone surrogate it escapes has no UTF-8 form: the
    # graph would load and validate, then fail when it is stored or hashed.
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise GraphFormatError("graph_not_utf8", path) from None
    return value


def _integer(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphFormatError("graph_wrong_type", path, expected="integer")
    if abs(value) > 2**53:  # JavaScript's safe range: the editor must read it back
        raise GraphFormatError("graph_number_out_of_range", path)
    return value


def _coordinate(value: object, path: str) -> int:
    # The editor may send fractional positions after a drag; whole pixels are enough.
    if isinstance(value, (Decimal, float)) and not isinstance(value, bool):
        number = Decimal(value) if isinstance(value, float) else value
        if number.is_finite() and abs(number) <= 10**6:
            return int(number.to_integral_value())
        raise GraphFormatError("graph_number_out_of_range", path)
    value = _integer(value, path)
    if abs(value) > 10**6:
        raise GraphFormatError("graph_number_out_of_range", path)
    return value


def _labels(value: object, path: str) -> Labels:
    if not isinstance(value, dict):
        raise GraphFormatError("graph_wrong_type", path, expected="object")
    if len(value) > 16:
        raise GraphFormatError("graph_list_too_long", path, limit=16)
    return Labels(
        (_encodable(locale, path), _string(text, _join(path, locale)))
        for locale, text in value.items()
    )


_AMOUNT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,4})?")


def _amount(value: object, path: str) -> Decimal:
    """Money is a decimal string on the wire ("2000.00"), never a float."""
    if not isinstance(value, str) or not _AMOUNT.fullmatch(value):
        raise GraphFormatError("graph_bad_amount", path)
    try:
        return Decimal(value)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise GraphFormatError("graph_bad_amount", path) from None


def from_json(data: object) -> Graph:
    """Build a graph from parsed JSON data. Raises GraphFormatError only."""
    # The format first: another format may have other keys, and "format 2 cannot be read
    # here" is the answer, not "key x is not part of a flow". A boolean is no format
    # number, though Python says True == 1.
    fmt = data.get("format", _MISSING) if isinstance(data, dict) else _MISSING
    if fmt is not _MISSING and (isinstance(fmt, bool) or fmt != FORMAT):
        raise GraphFormatError("graph_format_unsupported", "format", format=str(fmt)[:20])
    r = _Reader(
        data,
        "",
        required=("kind", "states"),
        optional=(
            "format",
            "labels",
            "posting_order",
            "exclusive_approval",
            "fields",
            "transitions",
            "grants",
        ),
    )
    return Graph(
        kind=r.string("kind") or "",
        labels=r.labels("labels"),
        posting_order=r.string("posting_order"),
        exclusive_approval=bool(r.boolean("exclusive_approval")),
        fields=tuple(_read_field(item, path) for item, path in r.items("fields")),
        states=tuple(_read_state(item, path) for item, path in r.items("states")),
        transitions=tuple(_read_transition(item, path) for item, path in r.items("transitions")),
        grants=tuple(_read_grant(item, path) for item, path in r.items("grants")),
    )


def _read_field(data: object, path: str) -> DocumentField:
    r = _Reader(data, path, ("key", "type"), ("labels", "required", "choices"))
    choices = []
    for item, item_path in r.items("choices"):
        c = _Reader(item, item_path, ("key",), ("labels",))
        choices.append(Choice(key=c.string("key") or "", labels=c.labels("labels")))
    return DocumentField(
        key=r.string("key") or "",
        type=r.string("type") or "",
        labels=r.labels("labels"),
        required=bool(r.boolean("required")),
        choices=tuple(choices),
    )


def _read_state(data: object, path: str) -> State:
    r = _Reader(
        data,
        path,
        ("key", "role"),
        ("labels", "terminal", "deadline", "escalate_after", "approval", "x", "y"),
    )
    deadline = None
    raw = r.raw("deadline")
    if raw is not _MISSING and raw is not None:
        d = _Reader(raw, r.at("deadline"), ("after", "on_breach"), ("transition",))
        deadline = Deadline(
            after=d.string("after") or "",
            on_breach=d.string("on_breach") or "",
            transition=d.string("transition"),
        )
    return State(
        key=r.string("key") or "",
        labels=r.labels("labels"),
        role=r.string("role") or "",
        terminal=bool(r.boolean("terminal")),
        deadline=deadline,
        escalate_after=r.string("escalate_after"),
        approval=r.string("approval"),
        x=r.coordinate("x"),
        y=r.coordinate("y"),
    )


def _read_transition(data: object, path: str) -> Transition:
    r = _Reader(
        data,
        path,
        ("key", "from", "to", "gate"),
        ("labels", "guard", "comment", "reverses", "order", "vertices"),
    )
    guard = None
    raw = r.raw("guard")
    if raw is not _MISSING and raw is not None:
        g = _Reader(raw, r.at("guard"), ("expression",), ("message",))
        guard = TransitionGuard(
            expression=g.string("expression") or "", message=g.labels("message")
        )
    vertices = []
    for item, item_path in r.items("vertices"):
        if not isinstance(item, list) or len(item) != 2:
            raise GraphFormatError("graph_wrong_type", item_path, expected="[x, y]")
        vertices.append(
            (_coordinate(item[0], f"{item_path}[0]"), _coordinate(item[1], f"{item_path}[1]"))
        )
    return Transition(
        key=r.string("key") or "",
        from_state=r.string("from") or "",
        to_state=r.string("to") or "",
        gate=r.string("gate") or "",
        labels=r.labels("labels"),
        guard=guard,
        comment=r.string("comment"),
        reverses=bool(r.boolean("reverses")),
        order=r.integer("order") or 0,
        vertices=tuple(vertices),
    )


def _read_grant(data: object, path: str) -> Grant:
    r = _Reader(
        data,
        path,
        ("grantee",),
        ("state", "all_states", "min_amount", "currency", "on_vacancy", "max_escalation_levels"),
    )
    e = _Reader(
        r.raw("grantee"),
        r.at("grantee"),
        ("kind",),
        ("member", "position", "levels", "role", "walk_up"),
    )
    raw_amount = r.raw("min_amount")
    min_amount = None
    if raw_amount is not _MISSING and raw_amount is not None:
        min_amount = _amount(raw_amount, r.at("min_amount"))
    return Grant(
        grantee=Grantee(
            kind=e.string("kind") or "",
            member=e.integer("member"),
            position=e.integer("position"),
            levels=e.integer("levels"),
            role=e.string("role"),
            walk_up=e.boolean("walk_up"),
        ),
        state=r.string("state"),
        all_states=bool(r.boolean("all_states")),
        min_amount=min_amount,
        currency=r.string("currency"),
        on_vacancy=r.string("on_vacancy"),
        max_escalation_levels=r.integer("max_escalation_levels"),
    )
