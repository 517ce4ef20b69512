"""A grant in the reader's words: who decides, from which amount, what happens when the
seat is empty. One wording for the flow page, the route preview and the editor's
publish summary; names of members and seats come from the org chart
(``services.references``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from flask_babel import gettext as _
from flask_babel import ngettext

from portal.domain.graph import (
    DEFAULT_MAX_ESCALATION_LEVELS,
    Grant,
    Grantee,
    GranteeKind,
    OnVacancy,
)
from portal.web.i18n import format_money


class Names(Protocol):
    """Display names for the members and seats grants point at."""

    @property
    def members(self) -> Mapping[int, str]: ...

    @property
    def positions(self) -> Mapping[int, str]: ...


def grantee_words(grantee: Grantee, names: Names) -> str:
    kind = grantee.kind
    if kind == GranteeKind.SUPERIOR:
        return _("the requester's superior")
    if kind == GranteeKind.UNIT_HEAD:
        if grantee.walk_up:
            return _("the head of the requester's unit (or of a unit above)")
        return _("the head of the requester's unit")
    if kind == GranteeKind.LEVELS_UP:
        levels = grantee.levels or 0
        return ngettext(
            "%(num)s seat above the requester", "%(num)s seats above the requester", levels
        )
    if kind == GranteeKind.ROLE:
        if grantee.role == "admin":
            return _("every admin")
        if grantee.role == "auditor":
            return _("every auditor")
        return _("every %(role)s", role=grantee.role)
    if kind == GranteeKind.MEMBER:
        member = grantee.member
        return (names.members.get(member) if member is not None else None) or _(
            "member #%(id)s", id=member
        )
    if kind == GranteeKind.POSITION:
        position = grantee.position
        return (names.positions.get(position) if position is not None else None) or _(
            "position #%(id)s", id=position
        )
    return kind


def floor_words(grant: Grant) -> str:
    if not grant.min_amount:
        return ""
    return _("from %(amount)s", amount=format_money(grant.min_amount, grant.currency or ""))


def grant_words(grant: Grant, names: Names) -> str:
    """Everything a grant says, in one line: "the requester's superior, from RM 500.00,
    refused when the seat is empty, escalated at most 2 levels"."""
    parts = [grantee_words(grant.grantee, names)]
    if floor := floor_words(grant):
        parts.append(floor)
    if grant.all_states:
        parts.append(_("every state"))
    if grant.on_vacancy == OnVacancy.REFUSE:
        parts.append(_("refused when the seat is empty"))
    if grant.max_escalation_levels not in (None, DEFAULT_MAX_ESCALATION_LEVELS):
        parts.append(
            ngettext(
                "escalated at most %(num)s level",
                "escalated at most %(num)s levels",
                grant.max_escalation_levels or 0,
            )
        )
    return _(", ").join(parts)
