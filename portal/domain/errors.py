"""Domain errors: a stable code plus parameters, never an HTTP type.

``web/errors.py`` maps codes to HTTP statuses and translates the message once, at the
edge. ``field`` names the form field an error belongs to, when it belongs to one.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    # ``code`` is positional-only so a message parameter may also be called ``code``
    # (``duplicate_code``, ``unknown_unit``, ...).
    def __init__(self, code: str, /, *, field: str | None = None, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.field = field
        self.params = params

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, field={self.field!r}, params={self.params!r})"


class NotFound(DomainError):
    """The thing does not exist, or the actor may not know that it exists."""

    def __init__(self, what: str = "object") -> None:
        super().__init__("not_found", what=what)


class Forbidden(DomainError):
    def __init__(self, code: str = "forbidden", /, **params: Any) -> None:
        super().__init__(code, **params)


class Conflict(DomainError):
    pass


class RowErrors(DomainError):
    """Bulk input (a CSV upload) with one or more bad rows; nothing was applied."""

    def __init__(self, rows: list[RowError]) -> None:
        super().__init__("bad_rows", num=len(rows))
        self.rows = rows


class RowError:
    __slots__ = ("code", "column", "params", "row")

    def __init__(self, row: int, code: str, column: str | None = None, /, **params: Any) -> None:
        self.row = row
        self.code = code
        self.column = column
        self.params = params

    def __repr__(self) -> str:
        return f"RowError(row={self.row}, code={self.code!r}, column={self.column!r})"
