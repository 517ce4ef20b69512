"""The countries an organization may name as its territory (whose conventions its dates
and money follow), as Babel knows them."""

from __future__ import annotations

from functools import cache

from babel import Locale

# Codes Babel lists that name no country (unknown region, EU, eurozone, UN, pseudo-locales).
_NOT_COUNTRIES = frozenset({"ZZ", "EU", "EZ", "UN", "QO", "XA", "XB"})


@cache
def known_territories() -> frozenset[str]:
    """ISO 3166 alpha-2 codes of the countries Babel names."""
    return frozenset(
        code
        for code in map(str, Locale("en").territories)
        if len(code) == 2 and code.isalpha() and code not in _NOT_COUNTRIES
    )


@cache
def territory_names(language: str) -> tuple[tuple[str, str], ...]:
    """(code, the country's name in ``language``) of every known country, by name."""
    names = Locale.parse(language).territories
    return tuple(
        sorted(((code, names.get(code, code)) for code in known_territories()), key=lambda p: p[1])
    )
