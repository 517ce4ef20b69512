"""Turning a DomainError into a sentence in the reader's language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from flask_babel import gettext, ngettext

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
    if isinstance(template, tuple):
        singular, plural = template
        variables = {k: v for k, v in error.params.items() if k != "num"}
        return ngettext(singular, plural, error.params["num"], **variables)
    return gettext(template, **error.params)


def gap_message(reason: str, names: Mapping[str, object]) -> str:
    """Why a step found nobody to decide it (``gap_<reason>``), in words, with the names
    of the seat, member, unit or role it is about (``names`` may hold more: a refusal's
    whole params; the sentence takes what it names)."""
    gap = DomainError(f"gap_{reason}")
    gap.params = dict(names)
    return message_for(gap)
