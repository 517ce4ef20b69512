"""Org chart fixtures: a fixed "today", so dated holdings read the same every run."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from portal.core.clock import clock

TODAY = date(2026, 3, 16)


@pytest.fixture
def today(app) -> date:
    """Freezes the clock on TODAY; the harness unfreezes it after each test."""
    clock.freeze(datetime(TODAY.year, TODAY.month, TODAY.day, 9, 0, tzinfo=UTC))
    return TODAY
