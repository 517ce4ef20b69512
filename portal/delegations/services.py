"""Creating and revoking covers, each in one unit of work, and what the pages read.

A member lends their own authority (``set_cover``); an admin may set cover for a member
who is absent and cannot do it themselves (``set_cover_for``), recorded as set by the
admin and told to both people. The rules are ``domain.delegation``'s; this module
supplies what they need to know of the organization (its day, its members, the kinds its
published flows decide) and writes the row with its outbox notice.

Existence never leaks: a member id of another organization answers exactly like one
that names nobody (``delegate_unknown``), and another organization's or another
member's cover is not found.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.accounts.queries import MemberEntry, member_directory_in, member_entry_in, today_in
from portal.core import outbox
from portal.core.clock import clock
from portal.core.outbox import add_events
from portal.core.uow import UnitOfWork, unit_of_work_for
from portal.delegations.models import Delegation
from portal.delegations.queries import (
    CoverRow,
    cover_row_in,
    cover_rows_in,
    lent_or_held_by,
    not_over,
)
from portal.domain.actor import Actor, require_admin
from portal.domain.delegation import CoverRequest, check_cover, revoke_refusal, status_of
from portal.domain.errors import Conflict, DomainError, NotFound
from portal.domain.labels import Labels
from portal.flows.queries import published_kinds_in, version_in

# How many covers the pages list (a member lends and holds few; an organization's
# active and upcoming ones are few too): the newest windows first.
LISTED = 200


@dataclass(frozen=True)
class KindChoice:
    """A kind of document a cover may be limited to, with its flow's labels."""

    kind: str
    labels: Labels


@dataclass(frozen=True)
class CoverLine:
    """A cover as a page shows it: the row, where it stands today, and whether the
    reader may revoke it."""

    row: CoverRow
    status: str
    revocable: bool


@dataclass(frozen=True)
class CoversPage:
    """``/delegations``: the covers I lend and the ones I hold, and what the form
    offers (members other than me, the organization's kinds)."""

    today: date
    time_zone: str
    lent: list[CoverLine]
    held: list[CoverLine]
    members: list[MemberEntry]
    kinds: list[KindChoice]


@dataclass(frozen=True)
class AllCovers:
    """``/delegations/all`` (admins): every active and upcoming cover, and the form to
    set cover for an absent member."""

    today: date
    time_zone: str
    covers: list[CoverLine]
    members: list[MemberEntry]
    kinds: list[KindChoice]


# --- writes ------------------------------------------------------------------------------


def set_cover(actor: Actor, request: CoverRequest) -> CoverRow:
    """The actor lends their own authority to ``request.delegate`` (whatever delegator
    the request names: a member lends only their own). Refusals name their field:
    ``delegate_unknown`` and the rules' codes (``domain.delegation.check_cover``)."""
    with unit_of_work_for(actor) as uow:
        return _set_in(uow, actor, replace(request, delegator=actor.member_id))


def set_cover_for(actor: Actor, request: CoverRequest) -> CoverRow:
    """An admin sets cover for ``request.delegator``, a member who is absent: recorded
    as set by the admin, and both people are told. ``delegator_unknown`` when the id
    names no member here."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        return _set_in(uow, actor, request)


def _member_in(session: Session, member_id: int, code: str, field: str) -> MemberEntry:
    found = member_entry_in(session, member_id)
    if found is None:
        raise DomainError(code, field=field)
    return found


def _kinds_in(session: Session) -> set[str]:
    return {kind for kind, _ in published_kinds_in(session)}


def _set_in(uow: UnitOfWork, actor: Actor, request: CoverRequest) -> CoverRow:
    s = uow.session
    delegator = _member_in(s, request.delegator, "delegator_unknown", "delegator")
    delegate = _member_in(s, request.delegate, "delegate_unknown", "delegate")
    checked = check_cover(
        request,
        today=today_in(s, actor),
        delegate_active=delegate.active,
        delegator_active=delegator.active,
        kinds=_kinds_in(s),
    )
    row = Delegation(
        delegator_id=checked.delegator,
        delegate_id=checked.delegate,
        kind=checked.kind,
        valid_from=checked.valid_from,
        valid_to=checked.valid_to,
        reason=checked.reason,
        created_by=actor.member_id,
        created_at=clock.now(),
    )
    s.add(row)
    s.flush()
    # The delegate is told; the delegator too when an admin set it for them.
    told = [checked.delegate]
    if actor.member_id != checked.delegator:
        told.append(checked.delegator)
    add_events(s, [("notify.cover_set", {**_payload(row), "members": told})])
    uow.after_commit(lambda: outbox.nudge(actor.org_id))
    written = cover_row_in(s.connection(), actor.org_id, row.id)
    assert written is not None
    return written


def _payload(row: Delegation) -> dict[str, Any]:
    # Keys only: the notice is worded when it is read, in the reader's language.
    return {
        "delegation_id": row.id,
        "delegator": row.delegator_id,
        "delegate": row.delegate_id,
        "kind": row.kind,
        "valid_from": row.valid_from.isoformat(),
        "valid_to": row.valid_to.isoformat(),
        "from_member": row.created_by,
    }


def _revocable_in(session: Session, actor: Actor, delegation_id: int, *, lock: bool) -> Delegation:
    """The cover the actor may revoke: the delegator's own, or any for an admin.
    Another member's or another organization's: not found; one that is over:
    ``delegation_over``."""
    stmt = select(Delegation).where(Delegation.id == delegation_id)
    row = session.scalar(stmt.with_for_update() if lock else stmt)
    if row is None:
        raise NotFound("delegation")
    status = status_of(row.valid_from, row.valid_to, row.revoked_at, today=today_in(session, actor))
    refusal = revoke_refusal(
        delegator=row.delegator_id,
        actor=actor.member_id,
        actor_is_admin=actor.is_admin,
        status=status,
    )
    if refusal == "not_found":
        raise NotFound("delegation")
    if refusal is not None:
        raise Conflict(refusal)
    return row


def revoke_cover(actor: Actor, delegation_id: int) -> CoverRow:
    """End a cover now (stamped, never deleted): the delegator's own, or any for an
    admin. The delegate is told (and the delegator, when an admin revoked it)."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        # Locked: of two revocations at once, the second finds it over.
        row = _revocable_in(s, actor, delegation_id, lock=True)
        row.revoked_at = clock.now()
        row.revoked_by = actor.member_id
        s.flush()
        told = [row.delegate_id]
        if actor.member_id != row.delegator_id:
            told.append(row.delegator_id)
        add_events(
            s,
            [("notify.cover_revoked", {**_payload(row), "members": told, "by": actor.member_id})],
        )
        uow.after_commit(lambda: outbox.nudge(actor.org_id))
        revoked = cover_row_in(s.connection(), actor.org_id, row.id)
        assert revoked is not None
        return revoked


# --- reads -------------------------------------------------------------------------------


def _kind_choices_in(session: Session, org_id: int) -> list[KindChoice]:
    return [
        KindChoice(kind, version_in(session, org_id, kind, number).graph.labels)
        for kind, number in published_kinds_in(session)
    ]


def _lines(rows: list[CoverRow], actor: Actor, today: date) -> list[CoverLine]:
    lines = []
    for row in rows:
        status = status_of(row.valid_from, row.valid_to, row.revoked_at, today=today)
        refusal = revoke_refusal(
            delegator=row.delegator_id,
            actor=actor.member_id,
            actor_is_admin=actor.is_admin,
            status=status,
        )
        lines.append(CoverLine(row, status, refusal is None))
    return lines


def covers_page(actor: Actor) -> CoversPage:
    """The covers the actor lends and holds (over ones too, newest first), and the
    form's choices: every active member but the actor, and the organization's kinds."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        today = today_in(s, actor)
        rows = cover_rows_in(
            s.connection(), actor.org_id, lent_or_held_by(actor.member_id), limit=LISTED
        )
        lines = _lines(rows, actor, today)
        return CoversPage(
            today=today,
            time_zone=actor.time_zone,
            lent=[line for line in lines if line.row.delegator_id == actor.member_id],
            held=[line for line in lines if line.row.delegate_id == actor.member_id],
            members=[m for m in member_directory_in(s) if m.id != actor.member_id],
            kinds=_kind_choices_in(s, actor.org_id),
        )


def all_covers(actor: Actor) -> AllCovers:
    """Every active and upcoming cover of the organization (admins), and the choices of
    the form that sets cover for an absent member."""
    require_admin(actor)
    with unit_of_work_for(actor) as uow:
        s = uow.session
        today = today_in(s, actor)
        rows = cover_rows_in(s.connection(), actor.org_id, not_over(today), limit=LISTED)
        return AllCovers(
            today=today,
            time_zone=actor.time_zone,
            covers=_lines(rows, actor, today),
            members=member_directory_in(s),
            kinds=_kind_choices_in(s, actor.org_id),
        )


@dataclass(frozen=True)
class Revocation:
    """What the confirmation page shows: the cover, and the kinds' labels."""

    line: CoverLine
    kinds: list[KindChoice]


def revocation(actor: Actor, delegation_id: int) -> Revocation:
    """The cover the confirmation page asks about, refused as ``revoke_cover`` would
    refuse it (not found; ``delegation_over``)."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        _revocable_in(s, actor, delegation_id, lock=False)
        row = cover_row_in(s.connection(), actor.org_id, delegation_id)
        assert row is not None
        line = _lines([row], actor, today_in(s, actor))[0]
        return Revocation(line, _kind_choices_in(s, actor.org_id))
