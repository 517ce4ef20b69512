"""Password hashing and redirect-target checks."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

# argon2id with OWASP's minimum: m = 19 MiB, t = 2, p = 1.
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)

# Verifying against this keeps sign-in for an unknown email as slow as for a known one,
# so response time does not reveal which emails have accounts.
_DUMMY_HASH = _hasher.hash("countersign-timing-equaliser")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    return _hasher.check_needs_rehash(password_hash)


def is_safe_next(target: str | None) -> bool:
    """Only same-site absolute paths: "/o/acme/inbox" yes; "//evil", "/\\evil" no."""
    if not target or not target.startswith("/"):
        return False
    # The path is checked as given and once decoded: "/%09/evil" or "/%5Cevil" must not
    # become "//evil" for a proxy or browser that decodes before it resolves.
    path = unquote(target.split("?", 1)[0].split("#", 1)[0])
    for candidate in (target, path):
        if any(ord(ch) < 0x20 or ch == "\x7f" or ch == "\\" for ch in candidate):
            return False
        if candidate.startswith("//"):
            return False
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc
