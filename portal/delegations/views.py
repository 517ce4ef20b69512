"""The delegations pages: ``/o/<org>/delegations`` (the covers I lend and hold, and the
form to set one), the revocation's confirmation, and ``/delegations/all`` (admins: every
active and upcoming cover, and cover for an absent member).

Days are whole days of the organization's zone, both included; the page says so. A day
is read as the date input sends it (YYYY-MM-DD in ASCII digits) and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from functools import wraps
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import login_required
from flask_wtf import FlaskForm
from wtforms import Field, SelectField, StringField
from wtforms.fields import SelectChoice
from wtforms.widgets import DateInput

from portal.delegations import services
from portal.delegations.services import KindChoice
from portal.domain.actor import Actor
from portal.domain.delegation import MAX_REASON, CoverRequest
from portal.domain.errors import DomainError
from portal.domain.text_input import is_id
from portal.web.auth import admin_required
from portal.web.forms import attach_error
from portal.web.i18n import format_day
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("delegations", __name__, url_prefix="/o/<org>/delegations")

_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DayField(Field):
    """A date input: the day as YYYY-MM-DD in ASCII digits, or the field's message
    (``strptime`` would also read other scripts' digits)."""

    widget = DateInput()

    def process_formdata(self, valuelist: list[Any]) -> None:
        text = str(valuelist[0]).strip() if valuelist else ""
        self.data = None
        try:
            if not _ISO_DAY.fullmatch(text):
                raise ValueError(text)
            self.data = date.fromisoformat(text)
        except ValueError:
            refusal = DomainError("field_not_date", label=str(self.label.text))
            raise ValueError(message_for(refusal)) from None

    def _value(self) -> str:
        if self.raw_data:
            return str(self.raw_data[0])
        return self.data.isoformat() if isinstance(self.data, date) else ""


class CoverForm(FlaskForm):
    # The member's id as sent: the view reads it (another organization's id or none
    # at all answers like an unknown member).
    delegate = SelectField(_l("Who covers"), validate_choice=False)
    kind = SelectField(_l("For which documents"), validate_choice=False)
    valid_from = DayField(_l("First day"))
    valid_to = DayField(_l("Last day"))
    reason = StringField(_l("Reason"), render_kw={"maxlength": MAX_REASON})


class AbsentCoverForm(CoverForm):
    delegator = SelectField(_l("Who is away"), validate_choice=False)


def _member_id(raw: object, code: str, field: str) -> int:
    text = str(raw or "")
    if not is_id(text):
        raise DomainError(code, field=field)
    return int(text)


def _request_of(form: CoverForm, delegator: int) -> CoverRequest:
    """The cover the form asks for, or a refusal naming its field."""
    assert form.valid_from.data is not None and form.valid_to.data is not None
    return CoverRequest(
        delegator=delegator,
        delegate=_member_id(form.delegate.data, "delegate_unknown", "delegate"),
        kind=form.kind.data or None,
        valid_from=form.valid_from.data,
        valid_to=form.valid_to.data,
        reason=form.reason.data or "",
    )


def _fill_choices(
    form: CoverForm, members: list[Any], kinds: list[KindChoice], today: date
) -> None:
    locale = str(get_locale())
    # No first day before the organization's today (the service refuses one anyway).
    form.valid_from.render_kw = {"min": today.isoformat()}
    form.valid_to.render_kw = {"min": today.isoformat()}
    people = [SelectChoice(str(m.id), m.name) for m in members]
    form.delegate.choices = [SelectChoice("", _("Choose a colleague")), *people]
    form.kind.choices = [
        SelectChoice("", _("All kinds")),
        *(SelectChoice(k.kind, k.labels.text(locale) or k.kind) for k in kinds),
    ]
    if isinstance(form, AbsentCoverForm):
        form.delegator.choices = [SelectChoice("", _("Choose a member")), *people]


def _kind_names(kinds: list[KindChoice]) -> dict[str, str]:
    locale = str(get_locale())
    return {k.kind: k.labels.text(locale) or k.kind for k in kinds}


# --- my covers ---------------------------------------------------------------------------


def _covers_page(actor: Actor, form: CoverForm, status: int = 200) -> ResponseReturnValue:
    page = services.covers_page(actor)
    _fill_choices(form, page.members, page.kinds, page.today)
    return render_template(
        "delegations/index.html",
        page=page,
        form=form,
        kind_names=_kind_names(page.kinds),
    ), status


@bp.get("/")
@login_required
def index() -> ResponseReturnValue:
    return _covers_page(current_actor(), CoverForm())


@bp.post("/")
@login_required
def create() -> ResponseReturnValue:
    actor = current_actor()
    form = CoverForm()
    if form.validate_on_submit():
        try:
            cover = services.set_cover(actor, _request_of(form, actor.member_id))
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(
                _(
                    "%(name)s covers for you from %(first)s to %(last)s.",
                    name=cover.delegate_name,
                    first=format_day(cover.valid_from),
                    last=format_day(cover.valid_to),
                ),
                "success",
            )
            return redirect(url_for(".index"), code=303)
    return _covers_page(actor, form, 422)


# --- revoking ----------------------------------------------------------------------------


@bp.get("/<int:delegation_id>/revoke")
@login_required
def revoke_page(delegation_id: int) -> ResponseReturnValue:
    actor = current_actor()
    asked = services.revocation(actor, delegation_id)
    return render_template(
        "delegations/revoke.html",
        line=asked.line,
        kind_names=_kind_names(asked.kinds),
        back=_back(actor, asked.line),
    )


@bp.post("/<int:delegation_id>/revoke")
@login_required
def revoke(delegation_id: int) -> ResponseReturnValue:
    actor = current_actor()
    # Someone else's cover (not found) or one that is over (409) is answered by the
    # error handler with its message.
    cover = services.revoke_cover(actor, delegation_id)
    flash(
        _(
            "The cover by %(delegate)s for %(delegator)s is revoked.",
            delegate=cover.delegate_name,
            delegator=cover.delegator_name,
        ),
        "success",
    )
    back = "delegations.all_covers" if actor.member_id != cover.delegator_id else ".index"
    return redirect(url_for(back), code=303)


def _back(actor: Actor, line: services.CoverLine) -> str:
    if actor.member_id == line.row.delegator_id:
        return url_for(".index")
    return url_for(".all_covers")


# --- every cover (admins) ----------------------------------------------------------------


def _admins_only(view: Callable[..., ResponseReturnValue]) -> Callable[..., ResponseReturnValue]:
    """Members who are not admins do not learn the page exists."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> ResponseReturnValue:
        if not current_actor().is_admin:
            abort(404)
        return view(*args, **kwargs)

    return wrapper


def _all_page(actor: Actor, form: AbsentCoverForm, status: int = 200) -> ResponseReturnValue:
    page = services.all_covers(actor)
    _fill_choices(form, page.members, page.kinds, page.today)
    return render_template(
        "delegations/all.html",
        page=page,
        form=form,
        kind_names=_kind_names(page.kinds),
    ), status


@bp.get("/all")
@login_required
@_admins_only
@admin_required
def all_covers() -> ResponseReturnValue:
    return _all_page(current_actor(), AbsentCoverForm())


@bp.post("/all")
@login_required
@_admins_only
@admin_required
def create_for() -> ResponseReturnValue:
    actor = current_actor()
    form = AbsentCoverForm()
    if form.validate_on_submit():
        try:
            absent = _member_id(form.delegator.data, "delegator_unknown", "delegator")
            cover = services.set_cover_for(actor, _request_of(form, absent))
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(
                _(
                    "%(delegate)s covers for %(delegator)s from %(first)s to %(last)s.",
                    delegate=cover.delegate_name,
                    delegator=cover.delegator_name,
                    first=format_day(cover.valid_from),
                    last=format_day(cover.valid_to),
                ),
                "success",
            )
            return redirect(url_for(".all_covers"), code=303)
    return _all_page(actor, form, 422)
