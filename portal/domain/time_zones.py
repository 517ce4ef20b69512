"""Time as people live it: an organization's IANA zone, the day it is there, and the
country whose conventions its dates and money follow.

Times are stored in UTC; days ("today", the last day of a seat) are the organization's.
Pure: ``zoneinfo`` is the standard library's; the territories Babel knows are passed in.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from portal.domain.errors import DomainError

DEFAULT_TIME_ZONE = "UTC"
# Longest IANA name is 32 characters; the column holds 64.
_MAX_ZONE = 64


# Files of the zone database that name no place: the machine's own setting and
# leftovers an organization must not pick.
_NOT_PLACES = frozenset({"localtime", "posixrules", "Factory"})


@cache
def time_zone_names() -> tuple[str, ...]:
    """Every IANA zone this system knows, sorted (the settings pages' choices)."""
    return tuple(sorted(_known_zones()))


def check_time_zone(name: str, *, field: str = "time_zone") -> str:
    """``name`` if it is an IANA zone known here; ``invalid_time_zone`` otherwise. Only
    names from the list are accepted (never a path, never ``localtime``)."""
    if not isinstance(name, str) or len(name) > _MAX_ZONE or name not in _known_zones():
        shown = name[:_MAX_ZONE] if isinstance(name, str) else ""
        raise DomainError("invalid_time_zone", field=field, zone=shown)
    return name


@cache
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones() - _NOT_PLACES)


def check_territory(
    code: str | None, known: Collection[str], *, field: str = "territory"
) -> str | None:
    """An ISO 3166 country code (upper-cased) among ``known``, or None for none."""
    if code is None or code == "":
        return None
    cleaned = code.strip().upper() if isinstance(code, str) else ""
    if len(cleaned) != 2 or not cleaned.isascii() or not cleaned.isalpha() or cleaned not in known:
        raise DomainError("invalid_territory", field=field, territory=str(code)[:8])
    return cleaned


@cache
def zone(name: str) -> ZoneInfo:
    """The zone by name; an unknown name (a row written before validation) is UTC."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_TIME_ZONE)


def local_day(moment: datetime, zone_name: str) -> date:
    """The calendar day ``moment`` falls on in the zone. A naive moment (SQLite returns
    them) is UTC, as every stored time is — never the server's own zone."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone(zone_name)).date()


def end_of_day(day: date, zone_name: str) -> datetime:
    """The first instant after ``day`` in the zone (aware): a day's exclusive end. The
    last day of the calendar has no day after it: its end is its last instant."""
    if day >= date.max:
        return datetime.combine(day, time.max, tzinfo=zone(zone_name))
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=zone(zone_name))
