"""Days as people live them: the day it is in a zone, the end of a day there, and which
zone names and countries are accepted. No app, no database."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from portal.domain.errors import DomainError
from portal.domain.time_zones import (
    check_territory,
    check_time_zone,
    end_of_day,
    local_day,
    time_zone_names,
)

# 23:30 UTC on 1 December is 07:30 on 2 December in Kuala Lumpur (UTC+8).
LATE_UTC = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)


def test_the_day_is_the_zones_not_utcs():
    assert local_day(LATE_UTC, "UTC") == date(2026, 12, 1)
    assert local_day(LATE_UTC, "Asia/Kuala_Lumpur") == date(2026, 12, 2)
    # West of Greenwich the day can be behind: 01:00 UTC is still yesterday in New York.
    assert local_day(datetime(2026, 12, 2, 1, 0, tzinfo=UTC), "America/New_York") == date(
        2026, 12, 1
    )


def test_a_day_ends_at_the_next_local_midnight():
    ends = end_of_day(date(2026, 12, 2), "Asia/Kuala_Lumpur")
    assert ends.astimezone(UTC) == datetime(2026, 12, 2, 16, 0, tzinfo=UTC)
    assert local_day(ends, "Asia/Kuala_Lumpur") == date(2026, 12, 3)


def test_a_listed_zone_is_accepted_and_anything_else_is_refused_by_name():
    assert check_time_zone("Asia/Kuala_Lumpur") == "Asia/Kuala_Lumpur"
    assert "Asia/Kuala_Lumpur" in time_zone_names()
    for bad in (
        "Mars/Olympus",
        "asia/kuala_lumpur",
        "../../etc/passwd",
        "Asia/Kuala_Lumpur\x00",
        "localtime",
        "",
        "A" * 5000,
        "UTC+8",
    ):
        with pytest.raises(DomainError) as refused:
            check_time_zone(bad)
        assert refused.value.code == "invalid_time_zone"
        assert refused.value.field == "time_zone"
        assert len(refused.value.params["zone"]) <= 64


def test_a_known_country_is_accepted_upper_cased_and_others_refused():
    known = {"MY", "SG", "US"}
    assert check_territory("my", known) == "MY"
    assert check_territory("", known) is None
    assert check_territory(None, known) is None
    for bad in ("ZZ", "MYS", "M\x00", "１２", "X" * 5000, "M"):
        with pytest.raises(DomainError) as refused:
            check_territory(bad, known)
        assert refused.value.code == "invalid_territory"
