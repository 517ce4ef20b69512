"""The one source of "now". Tests freeze it; code never calls datetime.now() itself.

Outside production the clock may also follow a file (``PORTAL_CLOCK_FILE``), so that a
browser test can move time on for a live server and its worker at once: the file holds
an offset in seconds ("7200", "-30.5") or the instant it was at when the file was
written ("2026-12-03T09:00:00+00:00"; time runs on from there). It is read again at
most once a second, and only when its modification time changed.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from portal.domain.time_zones import local_day

# How often the clock looks at its file, at most.
_RECHECK_SECONDS = 1.0
# ASCII digits only: float() would also take other scripts' digits and "inf".
_SECONDS = re.compile(r"-?[0-9]{1,12}(\.[0-9]{1,6})?")
# Ten years either way: far enough for any test, near enough for datetime arithmetic.
_MAX_OFFSET_SECONDS = 10 * 366 * 24 * 3600


def read_offset(text: str, written_at: datetime) -> timedelta:
    """The offset a clock file's ``text`` sets, the file having been written at
    ``written_at``: seconds as a number, or an ISO 8601 instant with its zone."""
    text = text.strip()
    if not text:
        return timedelta()
    if _SECONDS.fullmatch(text):
        if abs(float(text)) > _MAX_OFFSET_SECONDS:
            raise ValueError(f"a clock file's offset is at most {_MAX_OFFSET_SECONDS} seconds")
        return timedelta(seconds=float(text))
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"a clock file holds seconds or an ISO 8601 instant, not {text[:40]!r}"
        ) from None
    if instant.tzinfo is None:
        raise ValueError(f"a clock file's instant needs its zone (such as +00:00): {text!r}")
    return instant.astimezone(UTC) - written_at


class _OffsetFile:
    """The offset a clock file holds, read again only when the file changed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = timedelta()
        self._stamp: int | None = None
        self._checked_at = float("-inf")

    def current(self) -> timedelta:
        tick = time.monotonic()
        if tick - self._checked_at < _RECHECK_SECONDS:
            return self.offset
        self._checked_at = tick
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            self.offset, self._stamp = timedelta(), None
            return self.offset
        if stat.st_mtime_ns != self._stamp:
            written_at = datetime.fromtimestamp(stat.st_mtime, UTC)
            # Half-written or mistyped: keep the last good offset and try again on the
            # next change rather than jump time back to the present.
            with contextlib.suppress(ValueError, OverflowError, OSError):
                self.offset = read_offset(self.path.read_text(), written_at)
            self._stamp = stat.st_mtime_ns
        return self.offset


class Clock:
    def __init__(self) -> None:
        self._frozen: datetime | None = None
        self._file: _OffsetFile | None = None

    def now(self) -> datetime:
        if self._frozen is not None:
            return self._frozen
        real = datetime.now(UTC)
        return real + self._file.current() if self._file is not None else real

    def today(self) -> date:
        """The day in UTC. Days people see are in their organization's zone: ``today_in``."""
        return self.now().date()

    def today_in(self, zone_name: str) -> date:
        """The calendar day it is now in the IANA zone ``zone_name``."""
        return local_day(self.now(), zone_name)

    def freeze(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("freeze the clock with an aware datetime")
        self._frozen = at.astimezone(UTC)

    @property
    def frozen_at(self) -> datetime | None:
        """Where the clock stands frozen (None: it runs), to put it back after moving it."""
        return self._frozen

    def advance(self, delta: timedelta) -> None:
        self._frozen = self.now() + delta

    def unfreeze(self) -> None:
        self._frozen = None

    def follow_file(self, path: Path | None) -> None:
        """Add the offset ``path`` holds to the time (``PORTAL_CLOCK_FILE``; never in
        production, which ``config`` refuses); None: real time again."""
        self._file = _OffsetFile(path) if path is not None else None


clock = Clock()
