"""The languages the product speaks. Pure, so flow labels and the web layer agree."""

from __future__ import annotations

SUPPORTED_LOCALES = ("en", "zh", "ms")
DEFAULT_LOCALE = "en"
