"""The languages the product speaks. Pure, so flow labels and the web layer agree."""

from __future__ import annotations

from portal.domain.errors import DomainError

SUPPORTED_LOCALES = ("en", "zh", "ms")
DEFAULT_LOCALE = "en"


def check_locale(locale: str, *, field: str = "locale") -> str:
    """``locale`` if the product speaks it; ``unsupported_locale`` otherwise."""
    if locale not in SUPPORTED_LOCALES:
        raise DomainError("unsupported_locale", field=field, locale=locale)
    return locale
