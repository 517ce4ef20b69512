"""Choosing the reader's language and zone, and formatting numbers, money and dates
with Babel.

Words follow the reader's language (``en``, ``zh``, ``ms``); dates, times and money
follow the language *and* the organization's territory when Babel knows the pair
(``en_MY``: "28 Nov 2026", "RM345.60"), else the language alone. Times are shown in the
reader's zone: their own for this organization, else the organization's. One format
everywhere: a medium date, and a medium date with a short time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.dates import format_date as babel_format_date
from babel.dates import format_datetime as babel_format_datetime
from babel.dates import format_timedelta as babel_format_timedelta
from babel.numbers import format_currency
from flask import Flask, g, has_request_context, request, session
from flask_babel import get_locale
from flask_login import current_user

from portal.config import SUPPORTED_LOCALES
from portal.domain.time_zones import DEFAULT_TIME_ZONE, zone

LOCALE_NAMES = {"en": "English", "zh": "中文", "ms": "Bahasa Melayu"}
NBSP = "\u00a0"


def select_locale() -> str:
    """The user's saved choice, else the organization's default, else the browser's."""
    if current_user and current_user.is_authenticated and current_user.locale:
        return current_user.locale
    chosen = session.get("locale")
    if chosen in SUPPORTED_LOCALES:
        return chosen
    actor = g.get("actor")
    if actor is not None:
        return actor.locale
    return request.accept_languages.best_match(SUPPORTED_LOCALES) or "en"


def select_timezone() -> str:
    """Flask-Babel's zone: the reader's (their own for this organization, else the
    organization's); UTC outside an organization."""
    return reader_time_zone()


def reader_time_zone() -> str:
    actor = g.get("actor") if has_request_context() else None
    return actor.display_time_zone if actor is not None else DEFAULT_TIME_ZONE


def _territory() -> str | None:
    actor = g.get("actor") if has_request_context() else None
    return getattr(actor, "territory", None) if actor is not None else None


@lru_cache(maxsize=64)
def locale_for(language: str, territory: str | None) -> str:
    """The Babel locale formats follow: ``language_territory`` when Babel has that pair
    (``zh`` + ``MY`` is ``zh_Hans_MY``), else the language."""
    if territory:
        try:
            paired = Locale.parse(f"{language}_{territory}")
        except (UnknownLocaleError, ValueError):
            paired = None
        if paired is not None and paired.territory == territory:
            return str(paired)
    return language


def format_locale() -> str:
    """The reader's formatting locale (language plus the organization's territory)."""
    language = get_locale()
    return locale_for(str(language) if language is not None else "en", _territory())


def format_money(amount: Decimal | None, currency: str, locale: str | None = None) -> str:
    """``locale`` (a formatting locale, see ``format_locale``) defaults to the reader's;
    a list resolves it once and passes it in."""
    if amount is None:
        return ""
    return _money_text(amount, currency, locale or format_locale())


@lru_cache(maxsize=8192)
def _money_text(amount: Decimal, currency: str, locale: str) -> str:
    # Babel's pattern engine costs ~0.1 ms a call; lists show the same amounts page after
    # page (the inbox refreshes every 30 s), so the text is kept by value. Never
    # rounded: an amount kept from before the currency's decimals were enforced shows
    # every place it has, as it is routed on (the currency's decimals at the least).
    text = format_currency(amount, currency, locale=locale, decimal_quantization=False)
    return unglue_currency_code(text, currency)


def unglue_currency_code(text: str, currency: str) -> str:
    """Where a locale's pattern writes the ISO code against the digits ("MYR345.60"),
    a no-break space between them ("MYR 345.60"), as CLDR does for codes elsewhere."""
    if not currency or currency not in text:
        return text
    code = re.escape(currency)
    text = re.sub(rf"(?<![A-Za-z]){code}(?=[-+\u2212]?\d)", f"{currency}{NBSP}", text)
    return re.sub(rf"(?<=\d){code}(?![A-Za-z])", f"{NBSP}{currency}", text)


@lru_cache(maxsize=64)
def _moment_pattern(locale: str) -> str:
    """The locale's medium date and short time, joined as the locale joins them."""
    loc = Locale.parse(locale)
    glue = str(loc.datetime_formats["medium"])
    day = loc.date_formats["medium"].pattern
    time = loc.time_formats["short"].pattern
    return glue.replace("{1}", day).replace("{0}", time)


def _aware(value: datetime) -> datetime:
    # Stored times are UTC; a naive one (SQLite, older rows) is read as such.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def format_moment(
    value: datetime | None, locale: str | None = None, time_zone: str | None = None
) -> str:
    """A medium date and a short time in the reader's zone: "2 Dec 2026, 6:29 pm"."""
    if value is None:
        return ""
    locale = locale or format_locale()
    return babel_format_datetime(
        _aware(value),
        _moment_pattern(locale),
        tzinfo=zone(time_zone or reader_time_zone()),
        locale=locale,
    )


def format_day(
    value: date | datetime | str | None,
    locale: str | None = None,
    time_zone: str | None = None,
    *,
    long: bool = False,
) -> str:
    """A medium date ("2 Dec 2026"); a moment is first placed in the reader's zone, and a
    date field's stored ISO text is read as a date."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        text = value
        try:
            value = date.fromisoformat(text)
        except ValueError:
            return text
    if isinstance(value, datetime):
        value = _aware(value).astimezone(zone(time_zone or reader_time_zone())).date()
    return babel_format_date(value, "long" if long else "medium", locale=locale or format_locale())


def format_long_moment(value: datetime | None, locale: str | None = None) -> str:
    """A long date and time with its zone (mail, where the reader's zone is not known)."""
    if value is None:
        return ""
    return babel_format_datetime(
        _aware(value), "long", tzinfo=zone(reader_time_zone()), locale=locale or format_locale()
    )


@lru_cache(maxsize=4096)
def _elapsed_text(amount: int, unit: str, locale: str) -> str:
    return babel_format_timedelta(
        timedelta(seconds=amount * _UNIT_SECONDS[unit]), add_direction=False, locale=locale
    )


_UNIT_SECONDS = {
    "year": 3600 * 24 * 365,
    "month": 3600 * 24 * 30,
    "week": 3600 * 24 * 7,
    "day": 3600 * 24,
    "hour": 3600,
    "minute": 60,
    "second": 1,
}


def format_elapsed(delta: timedelta, locale: str | None = None) -> str:
    """'3 days', in the reader's language (or ``locale``): Babel's wording, rounded to
    its largest unit (at 0.85 of a unit, as Babel does) so the text can be kept and
    reused."""
    locale = locale or format_locale()
    seconds = abs(delta.total_seconds())
    for unit, size in _UNIT_SECONDS.items():
        value = seconds / size
        if value >= 0.85:
            return _elapsed_text(max(1, round(value)), unit, locale)
    return _elapsed_text(0, "second", locale)


def init_i18n_filters(app: Flask) -> None:
    app.jinja_env.filters["money"] = format_money

    def _date(value: date | datetime | str | None, fmt: str = "medium") -> str:
        # One date format on every page: the medium one; "long" for a sentence that
        # says a day in words ("at the end of today, 2 December 2026").
        return format_day(value, long=fmt == "long")

    def _datetime(value: datetime | None, fmt: str = "medium") -> str:
        # Pages show a medium date and a short time; mail says it in full, with the zone.
        return format_long_moment(value) if fmt in ("long", "full") else format_moment(value)

    def _label(labels: Mapping[str, str]) -> str:
        # Flow labels are per locale inside the graph; missing ones fall back to English.
        if hasattr(labels, "text"):
            return labels.text(str(get_locale()))
        return labels.get(str(get_locale())) or labels.get("en", "")

    app.jinja_env.filters["label"] = _label
    app.jinja_env.filters["date"] = _date
    app.jinja_env.filters["datetime"] = _datetime
    app.jinja_env.globals["LOCALE_NAMES"] = LOCALE_NAMES
    app.jinja_env.globals["SUPPORTED_LOCALES"] = SUPPORTED_LOCALES
    app.jinja_env.globals["current_locale"] = lambda: str(get_locale())
    app.jinja_env.globals["reader_time_zone"] = reader_time_zone
