"""Turning a DomainError into a sentence in the reader's language."""

from __future__ import annotations

from flask_babel import gettext, ngettext

from portal.domain.errors import DomainError, RowError
from portal.domain.messages import MESSAGES


def message_for(error: DomainError | RowError) -> str:
    template = MESSAGES.get(error.code)
    if template is None:
        return gettext("Something went wrong (%(code)s).", code=error.code)
    if isinstance(template, tuple):
        singular, plural = template
        variables = {k: v for k, v in error.params.items() if k != "num"}
        return ngettext(singular, plural, error.params["num"], **variables)
    return gettext(template, **error.params)
