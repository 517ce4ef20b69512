"""What text and numbers from outside may be: the rules the request layer applies to
every value before a view sees it, and the JSON reader every body and file goes through.

Text is normalised to NFC (a name typed on one keyboard compares equal to the same name
typed on another) and may hold no control characters: NUL cannot be stored by
PostgreSQL at all, and the others are never meant. Tabs and line breaks are allowed
only where a field says it takes several lines. Whole numbers are ASCII digits and
nothing else (``int()`` also reads "١٢٣", "1_000" and " 12 "), bounded before anything
compares them with a column.
"""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal
from typing import Any, NoReturn

from portal.domain.errors import DomainError

# Control characters (Unicode category Cc: C0, DEL, C1). Line breaks and tabs are
# allowed in multi-line fields only.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_DIGITS = re.compile(r"[0-9]{1,19}")

# Far above every field's own limit: the bound that holds where a field sets none.
MAX_FORM_VALUE = 20_000
MAX_QUERY_VALUE = 1_000
MAX_NAME = 100
# The largest id any table can hold (BIGINT).
MAX_ID = 2**63 - 1


def clean_text(value: str, *, field: str, multiline: bool = False, limit: int) -> str:
    """``value`` in NFC, or a refusal naming ``field``: a control character (line
    breaks and tabs pass when ``multiline``), or more than ``limit`` characters."""
    # Bound before normalising: NFC of a huge string is work an attacker would choose.
    if len(value) > limit:
        raise DomainError("value_too_long", field=field, name=field, limit=limit)
    pattern = _CONTROL_BUT_LINES if multiline else _CONTROL
    if pattern.search(value):
        raise DomainError("control_character", field=field, name=field)
    value = unicodedata.normalize("NFC", value)
    if len(value) > limit:  # composition never lengthens, but say it once
        raise DomainError("value_too_long", field=field, name=field, limit=limit)
    return value


def whole_number(text: str, *, field: str, minimum: int = 0, maximum: int = MAX_ID) -> int:
    """``"42"`` -> 42: ASCII digits only, between ``minimum`` and ``maximum``;
    ``not_a_whole_number`` or ``number_out_of_range`` (naming ``field``) otherwise."""
    if not _DIGITS.fullmatch(text):
        if text.isascii() and text.isdigit():  # only too long: a number, just too large
            raise DomainError(
                "number_out_of_range", field=field, name=field, min=minimum, max=maximum
            )
        raise DomainError("not_a_whole_number", field=field, name=field)
    number = int(text)
    if not minimum <= number <= maximum:
        raise DomainError("number_out_of_range", field=field, name=field, min=minimum, max=maximum)
    return number


def json_whole_number(value: object, *, field: str, minimum: int = 0, maximum: int = MAX_ID) -> int:
    """A whole number given in JSON (``true`` is not one), within the bounds."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise DomainError("not_a_whole_number", field=field, name=field)
    if not minimum <= value <= maximum:
        raise DomainError("number_out_of_range", field=field, name=field, min=minimum, max=maximum)
    return value


def is_id(text: str) -> bool:
    """Whether ``text`` could name a row: 1 to MAX_ID in ASCII digits."""
    return bool(_DIGITS.fullmatch(text)) and 0 < int(text) <= MAX_ID


# --- JSON ------------------------------------------------------------------------------


class JsonRefused(DomainError):
    """A JSON document this product does not read: not JSON, a key twice, a control
    character in a string, a number that is not finite."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        key = clean_text(key, field="json", limit=MAX_FORM_VALUE)
        if key in seen:
            # Two readers of one document must never see two different objects.
            raise JsonRefused("json_duplicate_key", key=key[:MAX_NAME])
        seen[key] = value
    return seen


def _refuse_constant(name: str) -> NoReturn:
    # NaN and Infinity are not JSON; Python's parser accepts them unless told not to.
    raise JsonRefused("json_invalid", line=1, column=1)


def _clean_strings(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value, field="json", multiline=True, limit=MAX_FORM_VALUE)
    if isinstance(value, list):
        return [_clean_strings(item) for item in value]
    if isinstance(value, dict):
        return {key: _clean_strings(item) for key, item in value.items()}
    return value


def loads_strict(text: str) -> Any:
    """JSON as this product reads it: decimals as ``Decimal`` (never a float), no key
    twice in an object, no NaN or Infinity, every string in NFC with no control
    character but line breaks and tabs. Raises ``JsonRefused`` (or ``DomainError`` for a
    string) only; nesting beyond the decoder's depth is ``json_too_deep``."""
    try:
        data = json.loads(
            text, parse_float=Decimal, parse_constant=_refuse_constant, object_pairs_hook=_pairs
        )
        return _clean_strings(data)
    except json.JSONDecodeError as exc:
        raise JsonRefused("json_invalid", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise JsonRefused("json_too_deep") from None
    except DomainError:
        raise
    except ValueError:  # an integer past the interpreter's digit limit
        raise JsonRefused("json_invalid", line=1, column=1) from None
