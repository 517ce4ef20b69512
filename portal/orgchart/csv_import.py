"""CSV import of units, positions and members: every bad row reported, all or nothing.

Rows are numbered as a spreadsheet shows them (the header is row 1). The whole file
is checked against the chart as it stands plus the file's own rows before anything is
written; one bad row and nothing is applied. Existing codes are updated in place, so
re-importing a corrected file is safe.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.models import Membership, User
from portal.accounts.services import add_member_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, Role, require_admin
from portal.domain.errors import DomainError, RowError, RowErrors
from portal.domain.naming import normalise_code, normalise_email, normalise_name
from portal.domain.orgchart import cycle_members
from portal.orgchart.models import HoldingKind, OrgUnit, Position, PositionHolding

MAX_ROWS = 5000

COLUMNS = {
    "units": ("code", "name", "parent_code"),
    "positions": ("code", "title", "unit_code", "reports_to_code", "heads_unit"),
    "members": ("email", "name", "roles", "position_code", "holding", "valid_from"),
}
REQUIRED = {
    "units": ("code", "name"),
    "positions": ("code", "title", "unit_code"),
    "members": ("email", "name"),
}
YES = {"yes", "y", "true", "1"}
NO = {"no", "n", "false", "0", ""}


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    # New accounts' temporary passwords, shown once to the importing admin.
    passwords: list[tuple[str, str]] = field(default_factory=list)


Row = dict[str, str]


def parse_csv(data: bytes, kind: str) -> list[tuple[int, Row]]:
    """(row number, cells) for each data row; file-level problems raise at once."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DomainError("csv_unreadable", field="file") from exc
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = [h.strip().lower() for h in next(reader, [])]
        missing = [c for c in REQUIRED[kind] if c not in header]
        if missing:
            raise DomainError("csv_missing_columns", field="file", columns=", ".join(missing))
        rows: list[tuple[int, Row]] = []
        # Count records, not physical lines: a quoted cell may span several lines yet is
        # one spreadsheet row; a blank line is an (empty) spreadsheet row of its own.
        for number, values in enumerate(reader, start=2):
            if len(rows) >= MAX_ROWS:
                raise DomainError("csv_too_large", field="file", limit=MAX_ROWS)
            # Short rows read as blank cells; cells beyond the header are ignored.
            padded = values + [""] * (len(header) - len(values))
            cells = {
                k: v.strip() for k, v in zip(header, padded, strict=False) if k in COLUMNS[kind]
            }
            if any(cells.values()):
                rows.append((number, cells))
    except csv.Error as exc:
        raise DomainError("csv_unreadable", field="file") from exc
    if not rows:
        raise DomainError("csv_empty", field="file")
    return rows


def import_csv(actor: Actor, kind: str, data: bytes) -> ImportResult:
    require_admin(actor)
    importer = IMPORTERS[kind]
    rows = parse_csv(data, kind)
    with unit_of_work_for(actor) as uow:
        errors: list[RowError] = []
        apply = importer(uow.session, rows, errors)
        if errors:
            raise RowErrors(sorted(errors, key=lambda e: (e.row, e.column or "")))
        return apply()


def _check(errors: list[RowError], row: int, column: str, check: Callable[[], object]) -> object:
    try:
        return check()
    except DomainError as error:
        errors.append(RowError(row, error.code, column, **error.params))
        return None


def _required(errors: list[RowError], row: int, cells: Row, columns: tuple[str, ...]) -> bool:
    ok = True
    for column in columns:
        if not cells.get(column):
            errors.append(RowError(row, "value_required", column))
            ok = False
    return ok


def _unique_in_file(
    errors: list[RowError], seen: dict[str, int], row: int, column: str, value: str
) -> None:
    key = value.lower()
    if key in seen:
        errors.append(RowError(row, "duplicate_in_file", column, value=value))
    else:
        seen[key] = row


# --- units ---------------------------------------------------------------------------------


def _import_units(session: Session, rows: list[tuple[int, Row]], errors: list[RowError]):  # type: ignore[no-untyped-def]
    existing = {u.code: u for u in session.scalars(select(OrgUnit))}
    seen: dict[str, int] = {}
    parsed: list[tuple[int, str, str, str | None]] = []
    for row, cells in rows:
        if not _required(errors, row, cells, REQUIRED["units"]):
            continue
        code = _check(errors, row, "code", lambda c=cells: normalise_code(c["code"]))
        name = _check(errors, row, "name", lambda c=cells: normalise_name(c["name"]))
        if code is None or name is None:
            continue
        _unique_in_file(errors, seen, row, "code", code)  # type: ignore[arg-type]
        parsed.append((row, code, name, cells.get("parent_code") or None))  # type: ignore[arg-type]
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


def _yes_no(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in YES:
        return True
    if lowered in NO:
        return False
    raise DomainError("invalid_boolean", value=value)


def _import_positions(session: Session, rows: list[tuple[int, Row]], errors: list[RowError]):  # type: ignore[no-untyped-def]
    units = {u.code: u for u in session.scalars(select(OrgUnit))}
    existing = {p.code: p for p in session.scalars(select(Position))}
    seen: dict[str, int] = {}
    parsed: list[tuple[int, str, str, str, str | None, bool]] = []
    for row, cells in rows:
        if not _required(errors, row, cells, REQUIRED["positions"]):
            continue
        code = _check(errors, row, "code", lambda c=cells: normalise_code(c["code"]))
        title = _check(errors, row, "title", lambda c=cells: normalise_name(c["title"], "title"))
        heads = _check(errors, row, "heads_unit", lambda c=cells: _yes_no(c.get("heads_unit", "")))
        unit_code = cells["unit_code"]
        if unit_code not in units:
            errors.append(RowError(row, "unknown_unit", "unit_code", code=unit_code))
        if code is None or title is None or heads is None:
            continue
        _unique_in_file(errors, seen, row, "code", code)  # type: ignore[arg-type]
        parsed.append(
            (row, code, title, unit_code, cells.get("reports_to_code") or None, bool(heads))
        )  # type: ignore[arg-type]
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
        ids[p.code]: ids.get(code_of_id.get(p.reports_to_id, "")) for p in existing.values()
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
            _unique_in_file(errors, headed_in_file, row, "heads_unit", unit_code)
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


def _roles(value: str) -> list[str]:
    roles = sorted({r for r in value.replace(";", " ").replace(",", " ").lower().split() if r})
    for role in roles:
        if role not in Role.ALL:
            raise DomainError("unknown_role", role=role)
    return roles


def _holding_kind(value: str) -> str:
    kind = (value or HoldingKind.PRIMARY).strip().lower()
    if kind not in HoldingKind.ALL:
        raise DomainError("invalid_holding_kind")
    return kind


def _day(value: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise DomainError("invalid_date", value=value) from exc


def _import_members(session: Session, rows: list[tuple[int, Row]], errors: list[RowError]):  # type: ignore[no-untyped-def]
    positions = {p.code: p for p in session.scalars(select(Position))}
    members_by_email = {
        email: member
        for member, email in session.execute(
            select(Membership, User.email).join(User, User.id == Membership.user_id)
        )
    }
    holdings: dict[int, list[PositionHolding]] = {}
    for holding in session.scalars(select(PositionHolding)):
        holdings.setdefault(holding.member_id, []).append(holding)
    seen: dict[str, int] = {}
    parsed = []
    for row, cells in rows:
        if not _required(errors, row, cells, REQUIRED["members"]):
            continue
        email = _check(errors, row, "email", lambda c=cells: normalise_email(c["email"]))
        name = _check(errors, row, "name", lambda c=cells: normalise_name(c["name"]))
        roles = _check(errors, row, "roles", lambda c=cells: _roles(c.get("roles", "")))
        kind = _check(errors, row, "holding", lambda c=cells: _holding_kind(c.get("holding", "")))
        start = _check(errors, row, "valid_from", lambda c=cells: _day(c.get("valid_from", "")))
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
        _unique_in_file(errors, seen, row, "email", email)  # type: ignore[arg-type]
        existing = members_by_email.get(email)  # type: ignore[arg-type]
        if existing is not None and position_code is None:
            errors.append(RowError(row, "duplicate_email", "email", email=email))
        start = start or clock.today()
        if existing is not None and position_code in positions:
            if not existing.active:
                errors.append(RowError(row, "member_inactive", "email", name=name))
            seated = _check_seat(
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
        for _, email, name, roles, position_code, kind, start in parsed:
            member = members_by_email.get(email)
            if member is None:
                created = add_member_in(session, email=email, name=name, roles=roles)
                member_id = created.member.id
                result.created += 1
                if created.temporary_password:
                    result.passwords.append((email, created.temporary_password))
            else:
                member_id = member.id
                result.updated += 1
            if position_code is not None:
                session.add(
                    PositionHolding(
                        member_id=member_id,
                        position_id=positions[position_code].id,
                        kind=kind,
                        valid_from=start,
                        created_at=clock.now(),
                    )
                )
        return result

    return apply


def _check_seat(
    errors: list[RowError],
    row: int,
    name: str,
    held: list[PositionHolding],
    position: Position,
    kind: str,
    start: date,
) -> bool:
    """Whether the member already holds this seat from ``start`` on; refuses the same
    overlapping primary seats the service refuses (the import's holding is open-ended)."""
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
