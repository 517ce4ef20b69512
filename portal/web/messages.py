"""Turning a DomainError into a sentence in the reader's language."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Protocol

from babel.numbers import format_decimal
from flask_babel import get_locale, gettext, ngettext

from portal.domain.errors import DomainError
from portal.domain.messages import MESSAGES


class Coded(Protocol):
    """Anything with a message code and its parameters: errors, row errors, violations."""

    @property
    def code(self) -> str: ...

    @property
    def params(self) -> Mapping[str, Any]: ...


def message_for(error: Coded) -> str:
    template = MESSAGES.get(error.code)
    if template is None:
        return gettext("Something went wrong (%(code)s).", code=error.code)
    params = {k: _reader_number(v) for k, v in error.params.items()}
    if isinstance(template, tuple):
        singular, plural = template
        variables = {k: v for k, v in params.items() if k != "num"}
        return ngettext(singular, plural, error.params["num"], **variables)
    return gettext(template, **params)


def _reader_number(value: Any) -> Any:
    # A Decimal in a message (a limit) is written as the reader writes numbers.
    if isinstance(value, Decimal):
        return format_decimal(value, locale=str(get_locale()), decimal_quantization=False)
    return value


def gap_message(reason: str, names: Mapping[str, object]) -> str:
    """Why a step found nobody to decide it (``gap_<reason>``), in words, with the names
    of the seat, member, unit or role it is about (``names`` may hold more: a refusal's
    whole params; the sentence takes what it names)."""
    gap = DomainError(f"gap_{reason}")
    gap.params = dict(names)
    return message_for(gap)
