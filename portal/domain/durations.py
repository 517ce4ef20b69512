"""Durations as a flow writes them ("30m", "48h", "3d"): a state's deadline and its
escalation delay."""

from __future__ import annotations

import re

_DURATION = re.compile(r"([1-9][0-9]{0,4})([mhd])")
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 24 * 60}
MIN_DURATION_MINUTES = 1
MAX_DURATION_MINUTES = 366 * 24 * 60


def duration_minutes(text: str) -> int | None:
    """``"48h"`` -> 2880; None when the text is not a duration we accept."""
    match = _DURATION.fullmatch(text)
    if not match:
        return None
    minutes = int(match.group(1)) * _UNIT_MINUTES[match.group(2)]
    if not MIN_DURATION_MINUTES <= minutes <= MAX_DURATION_MINUTES:
        return None
    return minutes
