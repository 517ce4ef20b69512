"""A day as a query string or a date input sends it: ``YYYY-MM-DD`` in ASCII digits.

Only years a person means are read (1900–2999): a day at either end of Python's calendar
(0001-01-01, 9999-12-31) cannot be turned into an instant in every time zone, and no
document of this product was or will be decided then.
"""

from __future__ import annotations

import re
from datetime import date

FIRST_YEAR = 1900
LAST_YEAR = 2999

_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def iso_day(text: str) -> date | None:
    """The day ``text`` writes, or None: not ``YYYY-MM-DD`` in ASCII digits (``strptime``
    and ``fromisoformat`` would read other scripts' digits too), no such day, or a year
    outside FIRST_YEAR..LAST_YEAR."""
    if not _ISO_DAY.fullmatch(text):
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return None
    return day if FIRST_YEAR <= day.year <= LAST_YEAR else None
