"""Who a grant points at, for one requester, on one day.

Each grant resolves to a sorted set of active members — or to nobody, with a **gap**
that says why, so an admin can fix the chart instead of guessing. The rules:

- ``member``: that member, while active.
- ``position``: the seat's holders that day.
- ``superior``: the holders of the seat the requester's primary seat reports to.
- ``unit_head``: the holders of the head seat of the requester's unit; when the unit has
  no head, the parent unit's — only if the grant says ``walk_up``.
- ``levels_up: n``: the holders of the seat n steps above the requester's primary seat.
- ``role``: the active members with that organization role.

A vacant seat escalates to the next filled seat above it, at most
``max_escalation_levels`` up, or is a gap when the grant says ``on_vacancy: refuse``.
Retired seats and inactive members resolve to nobody. A grant that would leave only the
requester escalates one level from the requester's own seat: nobody approves their
own document. (A ``member`` grant naming the requester is not escalated: it names a
person, not a relationship; the band leaves the requester out.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from portal.domain.graph import DEFAULT_MAX_ESCALATION_LEVELS, Grant, GranteeKind, OnVacancy
from portal.domain.orgchart import ChartSnapshot


class GapReason:
    VACANT = "vacant"
    POSITION_RETIRED = "position_retired"
    NO_PRIMARY_POSITION = "no_primary_position"
    NO_UNIT_HEAD = "no_unit_head"
    ABOVE_ROOT = "above_root"
    MEMBER_INACTIVE = "member_inactive"
    ROLE_EMPTY = "role_empty"
    ONLY_THE_REQUESTER = "only_the_requester"
    # A step where no grant covers the amount at all (routing, not resolution).
    NO_BAND = "no_band"
    # Everyone in the band decides another step of the document (``domain.exclusive``).
    EXCLUSIVE_APPROVAL = "exclusive_approval"
    # Whoever raised the dispute being closed may not close it (``domain.dispute``).
    DISPUTE_RAISER = "dispute_raiser"
    # A task escalated as far as the grants' ``max_escalation_levels`` allow
    # (``domain.climb``).
    ESCALATION_BOUND = "escalation_bound"
    ALL = (
        VACANT,
        POSITION_RETIRED,
        NO_PRIMARY_POSITION,
        NO_UNIT_HEAD,
        ABOVE_ROOT,
        MEMBER_INACTIVE,
        ROLE_EMPTY,
        ONLY_THE_REQUESTER,
        NO_BAND,
        EXCLUSIVE_APPROVAL,
        DISPUTE_RAISER,
        ESCALATION_BOUND,
    )


@dataclass(frozen=True)
class Gap:
    reason: str
    # What to fix: the seat, the member, the unit or the role the reason is about.
    position_id: int | None = None
    member_id: int | None = None
    unit_id: int | None = None
    role: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"reason": self.reason}
        for name in ("position_id", "member_id", "unit_id", "role"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


@dataclass(frozen=True)
class Resolution:
    grant: Grant
    index: int  # the grant's position in its graph
    members: tuple[int, ...]
    # The seat whose holders these are (after any escalation); None for member and role.
    position_id: int | None = None
    escalated: bool = False
    gap: Gap | None = None
    # Why it escalated: the gap it went past (the vacant seat, or a step where only the
    # requester sat), so whoever it reached can be told. Not part of the recorded
    # snapshot, nor of equality: ``escalated`` and ``position_id`` say what was found.
    escalated_past: Gap | None = field(default=None, compare=False)

    @property
    def floor(self) -> Decimal:
        return self.grant.floor

    def to_json(self) -> dict[str, Any]:
        """What a decision records: the grant as it was resolved, never recomputed."""
        return {
            "grant": self.index,
            "grantee": self.grant.grantee.kind,
            # One spelling per floor, at the precision money is stored with.
            "floor": format(self.floor.quantize(Decimal("0.0001")), "f"),
            "members": list(self.members),
            "position_id": self.position_id,
            "escalated": self.escalated,
            "gap": self.gap.to_json() if self.gap else None,
        }


@dataclass(frozen=True)
class _Found:
    members: tuple[int, ...] = ()
    position_id: int | None = None
    escalated: bool = False
    gap: Gap | None = None
    escalated_past: Gap | None = None


def _max_levels(grant: Grant) -> int:
    if grant.max_escalation_levels is None:
        return DEFAULT_MAX_ESCALATION_LEVELS
    return grant.max_escalation_levels


def _seat(grant: Grant, position_id: int | None, chart: ChartSnapshot) -> _Found:
    """A seat's holders; when it is empty, the next filled seat above (if the grant
    escalates and one is within reach)."""
    # A seat grant that names no seat (only a draft can hold one) finds no seat either.
    seat = chart.seats.get(position_id) if position_id is not None else None
    if seat is None or not seat.active:
        return _Found(gap=Gap(GapReason.POSITION_RETIRED, position_id=position_id))
    position_id = seat.id
    members = chart.holders_of(position_id)
    if members:
        return _Found(members, position_id)
    if grant.on_vacancy != OnVacancy.REFUSE:
        above, members = chart.next_filled_above(position_id, _max_levels(grant))
        if members:
            past = Gap(GapReason.VACANT, position_id=position_id)
            return _Found(members, above, escalated=True, escalated_past=past)
    return _Found(gap=Gap(GapReason.VACANT, position_id=position_id))


def _unit_head_seat(grant: Grant, primary: int, chart: ChartSnapshot) -> int | Gap:
    unit_id = chart.seats[primary].unit_id
    unit = chart.units.get(unit_id)
    seen: set[int] = set()
    while unit is not None and unit.id not in seen:
        if unit.head_position_id is not None:
            return unit.head_position_id
        if not grant.grantee.walk_up:
            break
        seen.add(unit.id)
        unit = chart.units.get(unit.parent_id) if unit.parent_id is not None else None
    return Gap(GapReason.NO_UNIT_HEAD, unit_id=unit_id)


def _relative_seat(grant: Grant, primary: int, chart: ChartSnapshot) -> int | Gap:
    """The seat a superior / unit_head / levels_up grant starts from."""
    kind = grant.grantee.kind
    if kind == GranteeKind.UNIT_HEAD:
        return _unit_head_seat(grant, primary, chart)
    steps = 1 if kind == GranteeKind.SUPERIOR else (grant.grantee.levels or 0)
    chain = chart.chain_above(primary)
    if len(chain) < steps or steps < 1:
        return Gap(GapReason.ABOVE_ROOT, position_id=chain[-1] if chain else primary)
    return chain[steps - 1]


def _find(grant: Grant, requester: int, chart: ChartSnapshot) -> _Found:
    grantee = grant.grantee
    if grantee.kind == GranteeKind.MEMBER:
        if grantee.member in chart.active_members:
            return _Found((grantee.member,))
        return _Found(gap=Gap(GapReason.MEMBER_INACTIVE, member_id=grantee.member))
    if grantee.kind == GranteeKind.ROLE:
        members = chart.roles.get(grantee.role or "", ())
        if members:
            return _Found(members)
        return _Found(gap=Gap(GapReason.ROLE_EMPTY, role=grantee.role))
    if grantee.kind == GranteeKind.POSITION:
        return _seat(grant, grantee.position, chart)
    if grantee.kind not in (GranteeKind.SUPERIOR, GranteeKind.UNIT_HEAD, GranteeKind.LEVELS_UP):
        raise ValueError(f"unknown grantee kind {grantee.kind!r}")  # refused by the validator
    primary = chart.primary.get(requester)
    if primary is None or primary not in chart.seats:
        return _Found(gap=Gap(GapReason.NO_PRIMARY_POSITION, member_id=requester))
    start = _relative_seat(grant, primary, chart)
    if isinstance(start, Gap):
        return _Found(gap=start)
    return _seat(grant, start, chart)


def resolve(grant: Grant, requester: int, chart: ChartSnapshot, *, index: int = 0) -> Resolution:
    """The members ``grant`` points at for ``requester`` on ``chart.day``."""
    found = _find(grant, requester, chart)
    members = found.members
    if grant.grantee.kind != GranteeKind.MEMBER and requester in members:
        members = tuple(m for m in members if m != requester)
        if not members:
            # Nobody approves their own document: one level up from their own seat.
            primary = chart.primary.get(requester)
            above = 0
            holders: tuple[int, ...] = ()
            if primary is not None:
                above, holders = chart.next_filled_above(primary, _max_levels(grant))
            up = tuple(m for m in holders if m != requester)
            if up:
                past = Gap(GapReason.ONLY_THE_REQUESTER, member_id=requester)
                return Resolution(grant, index, up, above, escalated=True, escalated_past=past)
            gap = Gap(GapReason.ONLY_THE_REQUESTER, member_id=requester)
            return Resolution(grant, index, (), found.position_id, gap=gap)
    return Resolution(
        grant,
        index,
        tuple(sorted(set(members))),
        found.position_id,
        escalated=found.escalated,
        gap=found.gap if not members else None,
        escalated_past=found.escalated_past,
    )


def resolve_all(
    grants: Iterable[tuple[int, Grant]], requester: int, chart: ChartSnapshot
) -> list[Resolution]:
    """Resolve (index, grant) pairs, keeping their order."""
    return [resolve(grant, requester, chart, index=i) for i, grant in grants]
