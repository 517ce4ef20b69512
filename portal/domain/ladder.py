"""Amount bands: which of a step's grants decide a document of a given amount.

On a step, grants that resolved to nobody drop out. The winning floor is the highest
floor at or below the amount — bands are half-open, so 2000.00 exactly belongs to the
2000 band — and only the members of the grants with that floor decide, never the
requester. There is no fallback: an amount below every floor has no band at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from portal.domain.resolution import Resolution


@dataclass(frozen=True)
class Band:
    floor: Decimal
    # Who may decide: the band's members without the requester, sorted.
    members: tuple[int, ...]
    # The grants (by index in the graph) whose floor won.
    grants: tuple[int, ...]


def winning_floor(resolutions: Sequence[Resolution], amount: Decimal) -> Decimal | None:
    """The highest floor at or below ``amount`` among grants that found someone."""
    floors = [r.floor for r in resolutions if r.members and r.floor <= amount]
    return max(floors) if floors else None


def band_for(resolutions: Sequence[Resolution], amount: Decimal, requester: int) -> Band | None:
    """The winning band, or None when no grant that found anyone reaches ``amount``.
    The band may be empty when its only member is the requester."""
    floor = winning_floor(resolutions, amount)
    if floor is None:
        return None
    rows = [r for r in resolutions if r.members and r.floor == floor]
    members = sorted({m for r in rows for m in r.members} - {requester})
    return Band(floor, tuple(members), tuple(r.index for r in rows))
