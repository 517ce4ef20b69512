"""Reading an org chart CSV file: its rows as a spreadsheet numbers them, and each cell
read into the value it stands for — every problem recorded against its row and column,
so one pass over the file reports them all.

The header is row 1. File-level problems (not UTF-8, a missing column, too many rows,
no rows) are raised at once: no row could be read past them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import date
from typing import TypeVar

from portal.domain.actor import Role
from portal.domain.errors import DomainError, RowError, RowErrors
from portal.domain.text_input import clean_text
from portal.orgchart.models import HoldingKind

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

Row = dict[str, str]
T = TypeVar("T")


MAX_CELL = 500


def decode_csv(data: bytes) -> str:
    """The file's text (UTF-8, with or without a byte-order mark)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DomainError("csv_unreadable", field="file") from exc


def parse_csv(data: bytes | str, kind: str) -> list[tuple[int, Row]]:
    """(row number, cells) for each data row; file-level problems raise at once, and
    cells no row could use (a control character, an absurd length) are reported
    together, row by row, before any row is read for its meaning."""
    text = decode_csv(data) if isinstance(data, bytes) else data
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = [h.strip().lower() for h in next(reader, [])]
        missing = [c for c in REQUIRED[kind] if c not in header]
        if missing:
            raise DomainError("csv_missing_columns", field="file", columns=", ".join(missing))
        rows: list[tuple[int, Row]] = []
        problems: list[RowError] = []
        # Count records, not physical lines: a quoted cell may span several lines yet is
        # one spreadsheet row; a blank line is an (empty) spreadsheet row of its own.
        for number, values in enumerate(reader, start=2):
            if len(rows) >= MAX_ROWS:
                raise DomainError("csv_too_large", field="file", limit=MAX_ROWS)
            # Short rows read as blank cells; cells beyond the header are ignored.
            padded = values + [""] * (len(header) - len(values))
            cells = {
                k: _cell(problems, number, k, v)
                for k, v in zip(header, padded, strict=False)
                if k in COLUMNS[kind]
            }
            if any(cells.values()):
                rows.append((number, cells))
    except csv.Error as exc:
        raise DomainError("csv_unreadable", field="file") from exc
    if problems:
        raise RowErrors(problems)
    if not rows:
        raise DomainError("csv_empty", field="file")
    return rows


def _cell(problems: list[RowError], row: int, column: str, value: str) -> str:
    """A cell as read (NFC, trimmed), or "" with its problem recorded. A quoted cell may
    span lines (a spreadsheet's wrapped text); names are read with their spaces folded."""
    try:
        return clean_text(value, field=column, multiline=True, limit=MAX_CELL).strip()
    except DomainError as error:
        problems.append(RowError(row, error.code, column, **error.params))
        return ""


# --- recording problems row by row ---------------------------------------------------------


def checked(errors: list[RowError], row: int, column: str, read: Callable[[], T]) -> T | None:
    """What ``read`` returns, or None with its refusal recorded against the cell."""
    try:
        return read()
    except DomainError as error:
        errors.append(RowError(row, error.code, column, **error.params))
        return None


def has_required(errors: list[RowError], row: int, cells: Row, columns: tuple[str, ...]) -> bool:
    """Whether every one of ``columns`` has a value; each empty one is recorded."""
    ok = True
    for column in columns:
        if not cells.get(column):
            errors.append(RowError(row, "value_required", column))
            ok = False
    return ok


def unique_in_file(
    errors: list[RowError], seen: dict[str, int], row: int, column: str, value: str
) -> None:
    """Records ``value`` as seen, or the row as a repeat of an earlier one."""
    key = value.lower()
    if key in seen:
        errors.append(RowError(row, "duplicate_in_file", column, value=value))
    else:
        seen[key] = row


# --- cells -----------------------------------------------------------------------------------


def read_yes_no(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in YES:
        return True
    if lowered in NO:
        return False
    raise DomainError("invalid_boolean", value=value)


def read_roles(value: str) -> list[str]:
    found = sorted({r for r in value.replace(";", " ").replace(",", " ").lower().split() if r})
    for role in found:
        if role not in Role.ALL:
            raise DomainError("unknown_role", role=role)
    return found


def read_holding_kind(value: str) -> str:
    kind = (value or HoldingKind.PRIMARY).strip().lower()
    if kind not in HoldingKind.ALL:
        raise DomainError("invalid_holding_kind")
    return kind


def read_day(value: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise DomainError("invalid_date", value=value) from exc
