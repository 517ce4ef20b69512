"""What proves an account is its owner's: the rules for a new password, time-based
one-time codes (RFC 6238, as every authenticator app computes them) and recovery codes.

Pure: the services store what these functions return and pass back what was stored.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote, urlencode

from portal.domain.errors import DomainError

MIN_PASSWORD = 10
MAX_PASSWORD = 1024

TOTP_DIGITS = 6
TOTP_STEP_SECONDS = 30
# A code from the step before or after is still taken: phones' clocks drift.
TOTP_DRIFT_STEPS = 1
ISSUER = "Countersign"

RECOVERY_CODES = 10
# Lower-case base32 without look-alikes is what is printed; 12 characters, 60 bits.
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def check_new_password(password: str, *, email: str, field: str = "password") -> str:
    """``password`` if it may become an account's password; otherwise why not."""
    if len(password) < MIN_PASSWORD:
        raise DomainError("password_too_short", field=field, min=MIN_PASSWORD)
    if len(password) > MAX_PASSWORD:
        raise DomainError("password_too_long", field=field, max=MAX_PASSWORD)
    if not password.strip():
        raise DomainError("password_too_short", field=field, min=MIN_PASSWORD)
    lowered = password.strip().lower()
    local = email.split("@", 1)[0].lower()
    if lowered in {email.lower(), local}:
        raise DomainError("password_is_email", field=field)
    return password


# --- time-based one-time codes ----------------------------------------------------------


def new_totp_secret() -> str:
    """A fresh secret: 20 random bytes in base32 (what authenticator apps expect)."""
    return base64.b32encode(secrets.token_bytes(20)).decode("ascii").rstrip("=")


def _key(secret: str) -> bytes:
    return base64.b32decode(secret + "=" * (-len(secret) % 8))


def time_step(at: datetime) -> int:
    return int(at.timestamp()) // TOTP_STEP_SECONDS


def totp_code(secret: str, step: int) -> str:
    """The code for ``step`` (RFC 6238 over HMAC-SHA1, six digits)."""
    digest = hmac.new(_key(secret), struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(number % 10**TOTP_DIGITS).zfill(TOTP_DIGITS)


def accepted_step(secret: str, code: str, *, at: datetime, last_step: int | None) -> int | None:
    """The time step ``code`` is good for at ``at``, or None: six ASCII digits, from
    this step or the one either side, and later than the last step accepted (a code is
    good once, even within its 30 seconds)."""
    typed = "".join(code.split())
    if len(typed) != TOTP_DIGITS or not (typed.isascii() and typed.isdigit()):
        return None
    now = time_step(at)
    for step in range(now - TOTP_DRIFT_STEPS, now + TOTP_DRIFT_STEPS + 1):
        if last_step is not None and step <= last_step:
            continue
        if hmac.compare_digest(typed, totp_code(secret, step)):
            return step
    return None


def provisioning_uri(secret: str, account: str) -> str:
    """What an authenticator app scans: ``otpauth://totp/Countersign:<account>?…``."""
    label = quote(f"{ISSUER}:{account}")
    query = urlencode({"secret": secret, "issuer": ISSUER, "digits": TOTP_DIGITS})
    return f"otpauth://totp/{label}?{query}&period={TOTP_STEP_SECONDS}"


def grouped(secret: str) -> str:
    """The secret in groups of four, for typing it in by hand."""
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


# --- recovery codes ---------------------------------------------------------------------


@dataclass(frozen=True)
class RecoveryCodes:
    """Codes shown once to their owner, and what is stored of them."""

    shown: tuple[str, ...]
    stored: tuple[str, ...]


def _normal(code: str) -> str:
    return "".join(ch for ch in code.lower() if ch.isalnum())


def recovery_digest(code: str) -> str:
    return hashlib.sha256(_normal(code).encode("ascii", "ignore")).hexdigest()


def new_recovery_codes() -> RecoveryCodes:
    shown = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(12))
        shown.append(f"{raw[:4]}-{raw[4:8]}-{raw[8:]}")
    return RecoveryCodes(tuple(shown), tuple(recovery_digest(c) for c in shown))


def spend_recovery_code(code: str, stored: list[str]) -> list[str] | None:
    """The stored digests without ``code``'s, or None when it is not one of them."""
    if not 8 <= len(_normal(code)) <= 32:
        return None
    digest = recovery_digest(code)
    for kept in stored:
        if hmac.compare_digest(kept, digest):
            return [d for d in stored if d != kept]
    return None
