"""Choosing the reader's language, and formatting numbers, money and dates with Babel."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

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


def format_money(amount: Decimal | None, currency: str) -> str:
    if amount is None:
        return ""
    return format_currency(amount, currency, locale=str(get_locale()))


def init_i18n_filters(app: Flask) -> None:
    app.jinja_env.filters["money"] = format_money

    def _date(value: date | str | None, fmt: str = "medium") -> str:
        if isinstance(value, str):  # a date field's stored ISO text
            try:
                value = date.fromisoformat(value)
            except ValueError:
                return value
        return format_date(value, fmt) if value else ""

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
