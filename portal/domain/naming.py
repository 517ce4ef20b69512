"""Shapes of identifiers people type: organization slugs, chart codes, emails."""

from __future__ import annotations

import re
import unicodedata

from portal.domain.errors import DomainError

SLUG = re.compile(r"[a-z][a-z0-9-]{1,62}")
CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
CURRENCY = re.compile(r"[A-Z]{3}")
# Deliberately modest: one @, something on each side, a dot in the domain, no spaces.
EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}")


def normalise_slug(value: str, field: str = "slug") -> str:
    slug = value.strip().lower()
    if not SLUG.fullmatch(slug) or slug.endswith("-"):
        raise DomainError("invalid_slug", field=field)
    return slug


def normalise_code(value: str, field: str = "code") -> str:
    code = value.strip()
    if not CODE.fullmatch(code):
        raise DomainError("invalid_code", field=field)
    return code


def normalise_email(value: str, field: str = "email") -> str:
    email = lookup_email(value)
    if len(email) > 254 or not EMAIL.fullmatch(email):
        raise DomainError("invalid_email", field=field, email=value.strip())
    return email


def lookup_email(value: str) -> str:
    """An address as accounts are looked up by (stored lower-cased), without judging
    it: signing in with a malformed address is just a failed sign-in."""
    return unicodedata.normalize("NFC", value).strip().lower()


def normalise_name(value: str, field: str = "name") -> str:
    name = " ".join(value.split())
    if not name:
        raise DomainError("name_required", field=field)
    return name[:200]
