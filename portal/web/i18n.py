"""Choosing the reader's language, and formatting numbers, money and dates with Babel."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache

from babel.dates import format_timedelta as babel_format_timedelta
from babel.numbers import format_currency
from flask import Flask, g, request, session
from flask_babel import format_date, format_datetime, get_locale
from flask_login import current_user

from portal.config import SUPPORTED_LOCALES

LOCALE_NAMES = {"en": "English", "zh": "中文", "ms": "Bahasa Melayu"}


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


def format_money(amount: Decimal | None, currency: str, locale: str | None = None) -> str:
    """``locale`` defaults to the reader's; a list resolves it once and passes it in."""
    if amount is None:
        return ""
    return _money_text(amount, currency, locale or str(get_locale()))


@lru_cache(maxsize=8192)
def _money_text(amount: Decimal, currency: str, locale: str) -> str:
    # Babel's pattern engine costs ~0.1 ms a call; lists show the same amounts page after
    # page (the inbox refreshes every 30 s), so the text is kept by value.
    return format_currency(amount, currency, locale=locale)


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
    locale = locale or str(get_locale())
    seconds = abs(delta.total_seconds())
    for unit, size in _UNIT_SECONDS.items():
        value = seconds / size
        if value >= 0.85:
            return _elapsed_text(max(1, round(value)), unit, locale)
    return _elapsed_text(0, "second", locale)


def init_i18n_filters(app: Flask) -> None:
    app.jinja_env.filters["money"] = format_money

    def _date(value: date | str | None, fmt: str = "medium") -> str:
        if isinstance(value, str):  # a date field's stored ISO text
            try:
                day = date.fromisoformat(value)
            except ValueError:
                return value
            return str(format_date(day, fmt))
        return str(format_date(value, fmt)) if value else ""

    def _datetime(value: datetime | None, fmt: str = "medium") -> str:
        return format_datetime(value, fmt) if value else ""

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
