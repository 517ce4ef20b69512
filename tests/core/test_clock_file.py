"""The clock a browser test moves for a live server and its worker: an offset in a
file (seconds, or the instant it was when written), read again once it changed; never
in production; a file that cannot be read leaves the time as it was."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from portal.config import ConfigError, Settings
from portal.core import clock as clock_module
from portal.core.clock import Clock, read_offset

WRITTEN = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


def _touch(path: Path, text: str) -> None:
    """Write ``text`` and make the change visible at once (the clock looks at most once
    a second; a test does not wait for it)."""
    path.write_text(text)
    stamp = time.time() + 5 + len(text)
    os.utime(path, (stamp, stamp))


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setattr(clock_module, "_RECHECK_SECONDS", 0.0)


def test_an_offset_in_seconds_or_an_instant_moves_the_time():
    assert read_offset("7200", WRITTEN) == timedelta(hours=2)
    assert read_offset(" -30.5\n", WRITTEN) == timedelta(seconds=-30.5)
    assert read_offset("", WRITTEN) == timedelta()
    assert read_offset("2026-12-02T10:00:00+00:00", WRITTEN) == timedelta(hours=2)


@pytest.mark.parametrize(
    "text",
    ["soon", "١٢٠", "inf", "nan", "1e9", "9" * 13, "2026-12-02T10:00:00", "12\x00"],
)
def test_what_is_not_an_offset_is_refused_by_name(text):
    with pytest.raises(ValueError, match="clock file"):
        read_offset(text, WRITTEN)


def test_the_clock_follows_its_file_and_keeps_the_last_good_offset(tmp_path, fast):
    path = tmp_path / "clock"
    clock = Clock()
    clock.follow_file(path)
    # No file yet: real time.
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(seconds=5)

    _touch(path, "3600")
    assert timedelta(minutes=59) < clock.now() - datetime.now(UTC) < timedelta(minutes=61)
    _touch(path, "half-writ")  # a mistyped file: the hour stays
    assert clock.now() - datetime.now(UTC) > timedelta(minutes=59)
    _touch(path, "0")
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(seconds=5)

    # A frozen clock (the tests') wins over the file, and stopping following it ends it.
    clock.freeze(WRITTEN)
    assert clock.now() == WRITTEN
    clock.unfreeze()
    _touch(path, "3600")
    clock.follow_file(None)
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(seconds=5)


def test_the_file_is_read_again_at_most_once_a_second(tmp_path):
    path = tmp_path / "clock"
    clock = Clock()
    _touch(path, "3600")
    clock.follow_file(path)
    assert clock.now() - datetime.now(UTC) > timedelta(minutes=59)
    _touch(path, "0")
    # Within the second: the offset read a moment ago.
    assert clock.now() - datetime.now(UTC) > timedelta(minutes=59)


def test_the_setting_is_refused_in_production(tmp_path):
    allowed = Settings.from_env({"PORTAL_CLOCK_FILE": str(tmp_path / "clock")})
    assert allowed.clock_file == tmp_path / "clock"
    assert Settings.from_env({}).clock_file is None

    production = {
        "PORTAL_ENV": "production",
        "PORTAL_DATABASE_URL": "postgresql+psycopg://u:p@db/portal",
        "PORTAL_REDIS_URL": "redis://redis:6379/0",
        "PORTAL_SMTP_HOST": "smtp.example.com",
        "PORTAL_BASE_URL": "https://portal.example.com",
    }
    Settings.from_env(production)  # allowed without it
    with pytest.raises(ConfigError, match="PORTAL_CLOCK_FILE"):
        Settings.from_env({**production, "PORTAL_CLOCK_FILE": str(tmp_path / "clock")})
