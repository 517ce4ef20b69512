"""The one source of "now". Tests freeze it; code never calls datetime.now() itself."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from portal.domain.time_zones import local_day


class Clock:
    def __init__(self) -> None:
        self._frozen: datetime | None = None

    def now(self) -> datetime:
        return self._frozen if self._frozen is not None else datetime.now(UTC)

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

    def advance(self, delta: timedelta) -> None:
        self._frozen = self.now() + delta

    def unfreeze(self) -> None:
        self._frozen = None


clock = Clock()
