"""The one source of "now". Tests freeze it; code never calls datetime.now() itself."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta


class Clock:
    def __init__(self) -> None:
        self._frozen: datetime | None = None

    def now(self) -> datetime:
        return self._frozen if self._frozen is not None else datetime.now(UTC)

    def today(self) -> date:
        return self.now().date()

    def freeze(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("freeze the clock with an aware datetime")
        self._frozen = at.astimezone(UTC)

    def advance(self, delta: timedelta) -> None:
        self._frozen = self.now() + delta

    def unfreeze(self) -> None:
        self._frozen = None


clock = Clock()
