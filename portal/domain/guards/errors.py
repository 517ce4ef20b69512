"""The two ways a guard goes wrong: it is not a guard, or it cannot be evaluated."""

from __future__ import annotations

from typing import Any

from portal.domain.errors import DomainError


class GuardSyntaxError(DomainError):
    """The source is not a guard; ``params["column"]`` points at the offending character."""

    @property
    def column(self) -> int:
        return int(self.params["column"])


class GuardEvalError(DomainError):
    """A well-formed guard could not be evaluated against these facts; the guard fails closed."""

    @property
    def column(self) -> int:
        return int(self.params["column"])


def syntax_error(code: str, column: int, **params: Any) -> GuardSyntaxError:
    return GuardSyntaxError(code, column=column, **params)
