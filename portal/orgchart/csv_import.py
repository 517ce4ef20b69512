"""CSV import of units, positions and members: every bad row reported, all or nothing.

The file is read by ``csv_rows``; here the whole file is checked against the chart as
it stands plus the file's own rows before anything is written; one bad row and nothing
is applied. Existing codes are updated in place, so re-importing a corrected file is
safe. People who are not members yet are invited (they set their own passwords); the
seat their row names is reserved until they join. A worker runs it (``jobs``), telling
its progress as it goes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cached_property, partial

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import MemberEntry, member_directory_in, today_in
from portal.accounts.services.invitations import invite_in
from portal.core.clock import clock
from portal.core.uow import UnitOfWork
from portal.domain.actor import Actor, SystemActor, require_admin
from portal.domain.errors import RowError, RowErrors
from portal.domain.naming import normalise_code, normalise_email, normalise_name
from portal.domain.orgchart import cycle_members
from portal.orgchart.csv_rows import (
    REQUIRED,
    Row,
    checked,
    has_required,
    read_day,
    read_holding_kind,
    read_roles,
    read_yes_no,
    unique_in_file,
)
from portal.orgchart.models import (
    HoldingKind,
    OrgUnit,
    Position,
    PositionHolding,
)
from portal.orgchart.services.seating import reserve_seat_in


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    # New people invited (they join when they accept).
    invited: int = 0


# Writes what a checked file says; run only when no row had a problem.
Apply = Callable[[], ImportResult]
Rows = list[tuple[int, Row]]
# Told how many rows have been applied so far.
Progress = Callable[[int], None]


def _quiet(_applied: int) -> None:
    return None


@dataclass(frozen=True)
class _Context:
    uow: UnitOfWork
    actor: Actor | SystemActor
    progress: Progress

    @property
    def session(self) -> Session:
        return self.uow.session

    @cached_property
    def today(self) -> date:
        """The organization's day: where a row names no start, seats start on it."""
        return today_in(self.session, self.actor)


def import_rows_in(
    uow: UnitOfWork,
    actor: Actor | SystemActor,
    kind: str,
    rows: Rows,
    progress: Progress = _quiet,
) -> ImportResult:
    """Check every row of a parsed file, then (if none had a problem) apply them all,
    inside the caller's unit of work; ``RowErrors`` lists every problem otherwise."""
    require_admin(actor)
    errors: list[RowError] = []
    apply = IMPORTERS[kind](_Context(uow, actor, progress), rows, errors)
    if errors:
        raise RowErrors(sorted(errors, key=lambda e: (e.row, e.column or "")))
    return apply()


# --- units ---------------------------------------------------------------------------------


def _import_units(ctx: _Context, rows: Rows, errors: list[RowError]) -> Apply:
    session = ctx.session
    existing = {u.code: u for u in session.scalars(select(OrgUnit))}
    seen: dict[str, int] = {}
    parsed: list[tuple[int, str, str, str | None]] = []
    for row, cells in rows:
        if not has_required(errors, row, cells, REQUIRED["units"]):
            continue
        code = checked(errors, row, "code", partial(normalise_code, cells["code"]))
        name = checked(errors, row, "name", partial(normalise_name, cells["name"]))
        if code is None or name is None:
            continue
        unique_in_file(errors, seen, row, "code", code)
        parsed.append((row, code, name, cells.get("parent_code") or None))
    file_codes = {code for _, code, _, _ in parsed}
    for row, code, _, parent in parsed:
        if parent is not None and parent not in file_codes and parent not in existing:
            errors.append(RowError(row, "unknown_unit", "parent_code", code=parent))
        elif parent == code:
            errors.append(RowError(row, "unit_parent_self", "parent_code"))
    # The chart after the import must be a tree: check the combined parent links.
    ids = {code: i for i, code in enumerate(sorted(set(existing) | file_codes))}
    parent_of: dict[int, int | None] = {}
    code_of_id = {u.id: u.code for u in existing.values()}
    for code, unit in existing.items():
        parent_code = code_of_id.get(unit.parent_id) if unit.parent_id is not None else None
        parent_of[ids[code]] = ids.get(parent_code) if parent_code else None
    for _, code, _, parent in parsed:
        parent_of[ids[code]] = ids.get(parent) if parent else None
    looped = cycle_members(parent_of)
    for row, code, _, parent in parsed:
        if ids[code] in looped and parent != code:
            errors.append(
                RowError(row, "unit_cycle", "parent_code", unit=code, parent=parent or "")
            )

    def apply() -> ImportResult:
        result = ImportResult()
        by_code = dict(existing)
        for _, code, name, _ in parsed:
            unit = by_code.get(code)
            if unit is None:
                unit = OrgUnit(code=code, name=name, created_at=clock.now())
                session.add(unit)
                by_code[code] = unit
                result.created += 1
            else:
                unit.name = name
                result.updated += 1
        session.flush()
        for _, code, _, parent in parsed:
            by_code[code].parent_id = by_code[parent].id if parent else None
        return result

    return apply


# --- positions -----------------------------------------------------------------------------


def _import_positions(ctx: _Context, rows: Rows, errors: list[RowError]) -> Apply:
    session = ctx.session
    units = {u.code: u for u in session.scalars(select(OrgUnit))}
    existing = {p.code: p for p in session.scalars(select(Position))}
    seen: dict[str, int] = {}
    parsed: list[tuple[int, str, str, str, str | None, bool]] = []
    for row, cells in rows:
        if not has_required(errors, row, cells, REQUIRED["positions"]):
            continue
        code = checked(errors, row, "code", partial(normalise_code, cells["code"]))
        title = checked(errors, row, "title", partial(normalise_name, cells["title"], "title"))
        heads = checked(
            errors, row, "heads_unit", partial(read_yes_no, cells.get("heads_unit", ""))
        )
        unit_code = cells["unit_code"]
        if unit_code not in units:
            errors.append(RowError(row, "unknown_unit", "unit_code", code=unit_code))
        if code is None or title is None or heads is None:
            continue
        unique_in_file(errors, seen, row, "code", code)
        parsed.append(
            (row, code, title, unit_code, cells.get("reports_to_code") or None, bool(heads))
        )
    file_codes = {p[1] for p in parsed}
    for row, code, _, _, superior, _ in parsed:
        if superior is None:
            continue
        if superior == code:
            errors.append(RowError(row, "reports_to_self", "reports_to_code"))
        elif superior not in file_codes and superior not in existing:
            errors.append(RowError(row, "unknown_position", "reports_to_code", code=superior))
    codes = sorted(set(existing) | file_codes)
    ids = {code: i for i, code in enumerate(codes)}
    code_of_id = {p.id: p.code for p in existing.values()}
    edges: dict[int, int | None] = {
        ids[p.code]: ids[code_of_id[p.reports_to_id]] if p.reports_to_id in code_of_id else None
        for p in existing.values()
    }
    for _, code, _, _, superior, _ in parsed:
        edges[ids[code]] = ids.get(superior) if superior else None
    looped = cycle_members(edges)
    for row, code, _, _, superior, _ in parsed:
        if ids[code] in looped and superior != code:
            errors.append(
                RowError(
                    row,
                    "reporting_cycle",
                    "reports_to_code",
                    position=code,
                    superior=superior or "",
                )
            )
    # The service's head rules: a head is an active seat of the unit it heads.
    headed_in_file: dict[str, int] = {}
    for row, _, _, unit_code, _, heads in parsed:
        if heads:  # one head seat per unit: a second claim in the file is an error
            unique_in_file(errors, headed_in_file, row, "heads_unit", unit_code)
    for row, code, _, unit_code, _, heads in parsed:
        position = existing.get(code)
        if position is None:
            continue
        if heads and not position.active:
            errors.append(RowError(row, "position_retired", "heads_unit", code=code))
        for unit in units.values():
            if (
                unit.head_position_id == position.id
                and unit.code != unit_code
                and unit.code.lower() not in headed_in_file
            ):
                errors.append(RowError(row, "head_outside_unit", "unit_code"))

    def apply() -> ImportResult:
        result = ImportResult()
        by_code = dict(existing)
        for _, code, title, unit_code, _, _ in parsed:
            position = by_code.get(code)
            if position is None:
                position = Position(
                    code=code, title=title, unit_id=units[unit_code].id, created_at=clock.now()
                )
                session.add(position)
                by_code[code] = position
                result.created += 1
            else:
                position.title, position.unit_id = title, units[unit_code].id
                result.updated += 1
        session.flush()
        for _, code, _, unit_code, superior, heads in parsed:
            by_code[code].reports_to_id = by_code[superior].id if superior else None
            if heads:
                units[unit_code].head_position_id = by_code[code].id
        return result

    return apply


# --- members -------------------------------------------------------------------------------


def _import_members(ctx: _Context, rows: Rows, errors: list[RowError]) -> Apply:
    session = ctx.session
    positions = {p.code: p for p in session.scalars(select(Position))}
    members_by_email: dict[str, MemberEntry] = {
        m.email: m for m in member_directory_in(session, active_only=False)
    }
    holdings: dict[int, list[PositionHolding]] = {}
    for holding in session.scalars(select(PositionHolding)):
        holdings.setdefault(holding.member_id, []).append(holding)
    seen: dict[str, int] = {}
    parsed: list[tuple[int, str, str, list[str], str | None, str, date]] = []
    for row, cells in rows:
        if not has_required(errors, row, cells, REQUIRED["members"]):
            continue
        email = checked(errors, row, "email", partial(normalise_email, cells["email"]))
        name = checked(errors, row, "name", partial(normalise_name, cells["name"]))
        roles = checked(errors, row, "roles", partial(read_roles, cells.get("roles", "")))
        kind = checked(errors, row, "holding", partial(read_holding_kind, cells.get("holding", "")))
        start = checked(errors, row, "valid_from", partial(read_day, cells.get("valid_from", "")))
        position_code = cells.get("position_code") or None
        if position_code is not None:
            position = positions.get(position_code)
            if position is None:
                errors.append(
                    RowError(row, "unknown_position", "position_code", code=position_code)
                )
            elif not position.active:
                errors.append(
                    RowError(row, "position_retired", "position_code", code=position_code)
                )
        if email is None or name is None or roles is None or kind is None:
            continue
        unique_in_file(errors, seen, row, "email", email)
        existing = members_by_email.get(email)
        if existing is not None and position_code is None:
            errors.append(RowError(row, "duplicate_email", "email", email=email))
        elif existing is not None and existing.left:
            # They left: a new invitation (from the members page) is theirs to accept.
            errors.append(RowError(row, "member_left_import", "email", email=email))
        start = start or ctx.today
        if existing is not None and position_code in positions:
            if not existing.active:
                errors.append(RowError(row, "member_inactive", "email", name=name))
            seated = _already_seated(
                errors,
                row,
                name,
                holdings.get(existing.id, []),
                positions[position_code],
                kind,
                start,
            )
            if seated:
                position_code = None  # already sits there: a re-import adds no second holding
        parsed.append((row, email, name, roles, position_code, kind, start))

    def apply() -> ImportResult:
        result = ImportResult()
        for applied, (_, email, name, roles, position_code, kind, start) in enumerate(parsed):
            member = members_by_email.get(email)
            if member is None:
                invitation = invite_in(
                    ctx.uow, ctx.actor, email=email, name=name, roles=roles, resend=False
                )
                result.invited += 1
                if position_code is not None:  # theirs when they accept
                    reserve_seat_in(
                        session, invitation.id, positions[position_code].id, kind, start
                    )
            else:
                result.updated += 1
                if position_code is not None:
                    session.add(
                        PositionHolding(
                            member_id=member.id,
                            position_id=positions[position_code].id,
                            kind=kind,
                            valid_from=start,
                            created_at=clock.now(),
                        )
                    )
            ctx.progress(applied + 1)
        session.flush()
        return result

    return apply


def _already_seated(
    errors: list[RowError],
    row: int,
    name: str,
    held: list[PositionHolding],
    position: Position,
    kind: str,
    start: date,
) -> bool:
    """Whether the member already holds this seat from ``start`` on. Records, against
    the row, the overlapping primary seat the service would refuse (the import's
    holding is open-ended)."""
    current = [h for h in held if h.valid_to is None or h.valid_to >= start]
    if any(h.position_id == position.id and h.kind == kind for h in current):
        return True
    clash = next((h for h in current if h.kind == HoldingKind.PRIMARY), None)
    if kind == HoldingKind.PRIMARY and clash is not None:
        errors.append(
            RowError(
                row,
                "overlapping_primary",
                "position_code",
                name=name,
                start=clash.valid_from.isoformat(),
            )
        )
    return False


IMPORTERS = {"units": _import_units, "positions": _import_positions, "members": _import_members}
