"""Org chart admin pages: the chart, unit and position forms, seating, CSV import."""

from __future__ import annotations

from collections.abc import Iterable

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from wtforms.fields import SelectChoice

from portal.domain.errors import DomainError, NotFound, RowErrors
from portal.orgchart import csv_rows, services
from portal.orgchart.forms import (
    EndHoldingForm,
    HoldingForm,
    ImportForm,
    PositionForm,
    UnitForm,
)
from portal.orgchart.services import imports, pickers
from portal.web.auth import admin_required
from portal.web.forms import attach_error, query_id
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("orgchart", __name__, url_prefix="/o/<org>/admin/chart")

NONE_CHOICE = SelectChoice("", "—")


def _choices(rows: Iterable[services.Choice]) -> list[SelectChoice]:
    return [NONE_CHOICE, *(SelectChoice(str(c.id), c.label) for c in rows)]


@bp.get("/")
@admin_required
def chart() -> ResponseReturnValue:
    actor = current_actor()
    return render_template("orgchart/chart.html", chart=services.get_chart(actor))


# --- units ---------------------------------------------------------------------------------


def _unit_form_page(
    form: UnitForm, offer: pickers.UnitFormOffer, status: int = 200
) -> ResponseReturnValue:
    form.parent_id.choices = _choices(offer.parents)
    form.head_position_id.choices = _choices(offer.heads)
    return render_template("orgchart/unit_form.html", form=form, unit=offer.unit), status


@bp.route("/units/new", methods=["GET", "POST"])
@admin_required
def new_unit() -> ResponseReturnValue:
    form = UnitForm()
    if request.method == "GET":
        return _unit_form_page(form, pickers.unit_form(current_actor()))
    if form.validate_on_submit():
        try:
            services.create_unit(
                current_actor(),
                code=form.code.data,
                name=form.name.data,
                parent_id=form.parent_id.data,
            )
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Unit created."), "success")
            return redirect(url_for("orgchart.chart"))
    return _unit_form_page(form, pickers.unit_form(current_actor()), 422)


@bp.route("/units/<int:unit_id>", methods=["GET", "POST"])
@admin_required
def edit_unit(unit_id: int) -> ResponseReturnValue:
    actor = current_actor()
    # A field a post leaves out keeps the unit's value, so the unit is read first.
    offer = pickers.unit_form(actor, unit_id)
    form = UnitForm(obj=offer.unit)
    if request.method == "GET":
        return _unit_form_page(form, offer)
    if form.validate_on_submit():
        try:
            services.update_unit(
                actor,
                unit_id,
                code=form.code.data,
                name=form.name.data,
                parent_id=form.parent_id.data,
                head_position_id=form.head_position_id.data,
            )
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Unit saved."), "success")
            return redirect(url_for("orgchart.chart"))
    return _unit_form_page(form, offer, 422)


# --- positions -----------------------------------------------------------------------------


def _position_form_page(
    form: PositionForm, offer: pickers.PositionFormOffer, status: int = 200
) -> ResponseReturnValue:
    form.unit_id.choices = _choices(offer.units)
    form.reports_to_id.choices = _choices(offer.superiors)
    return render_template(
        "orgchart/position_form.html", form=form, position=offer.position
    ), status


@bp.route("/positions/new", methods=["GET", "POST"])
@admin_required
def new_position() -> ResponseReturnValue:
    form = PositionForm()
    if request.method == "GET":
        form.unit_id.data = query_id("unit_id")
        return _position_form_page(form, pickers.position_form(current_actor()))
    if form.validate_on_submit():
        try:
            services.create_position(
                current_actor(),
                code=form.code.data,
                title=form.title.data,
                unit_id=form.unit_id.data,
                reports_to_id=form.reports_to_id.data,
            )
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Position created."), "success")
            return redirect(url_for("orgchart.chart"))
    return _position_form_page(form, pickers.position_form(current_actor()), 422)


@bp.route("/positions/<int:position_id>", methods=["GET", "POST"])
@admin_required
def edit_position(position_id: int) -> ResponseReturnValue:
    actor = current_actor()
    # A field a post leaves out keeps the seat's value, so the seat is read first.
    offer = pickers.position_form(actor, position_id)
    form = PositionForm(obj=offer.position)
    if request.method == "GET":
        return _position_form_page(form, offer)
    if form.validate_on_submit():
        try:
            services.update_position(
                actor,
                position_id,
                code=form.code.data,
                title=form.title.data,
                unit_id=form.unit_id.data,
                reports_to_id=form.reports_to_id.data,
                active=form.active.data,
            )
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Position saved."), "success")
            return redirect(url_for("orgchart.chart"))
    return _position_form_page(form, offer, 422)


# --- holdings ------------------------------------------------------------------------------


def _holding_form_page(form: HoldingForm, status: int = 200) -> ResponseReturnValue:
    offer = pickers.holding_form(current_actor())
    form.member_id.choices = _choices(offer.members)
    form.position_id.choices = _choices(offer.positions)
    return render_template("orgchart/holding_form.html", form=form), status


@bp.route("/holdings/new", methods=["GET", "POST"])
@admin_required
def new_holding() -> ResponseReturnValue:
    form = HoldingForm()
    if request.method == "GET":
        form.position_id.data = query_id("position_id")
        form.member_id.data = query_id("member_id")
        return _holding_form_page(form)
    if form.validate_on_submit():
        try:
            services.assign_position(
                current_actor(),
                member_id=form.member_id.data,
                position_id=form.position_id.data,
                kind=form.kind.data,
                valid_from=form.valid_from.data,
                valid_to=form.valid_to.data,
            )
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Seat assigned."), "success")
            return redirect(url_for("orgchart.chart"))
    return _holding_form_page(form, status=422)


@bp.route("/holdings/<int:holding_id>/end", methods=["GET", "POST"])
@admin_required
def end_holding(holding_id: int) -> ResponseReturnValue:
    """Ending a seat asks first, saying who stops holding what and when (at the end of
    the last day, in the organization's zone). The post ends it only when it names the
    day the admin was shown; another day (or none) is shown to confirm again."""
    form = EndHoldingForm()
    if request.method == "POST" and not form.validate():
        flash(_("The last day is not a valid date."), "error")
        return redirect(url_for("orgchart.chart"))
    last_day = form.last_day.data if request.method == "POST" else None
    actor = current_actor()
    try:
        if last_day is not None and form.confirm.data == last_day.isoformat():
            services.end_holding(actor, holding_id, last_day=last_day)
            flash(_("Holding ended."), "success")
            return redirect(url_for("orgchart.chart"))
        ending = services.preview_end_holding(actor, holding_id, last_day=last_day)
    except NotFound:
        raise  # another organization's holding does not exist here: a 404, not a flash
    except DomainError as error:
        flash(message_for(error), "error")
        return redirect(url_for("orgchart.chart"))
    form.last_day.data = ending.last_day
    form.confirm.data = ending.last_day.isoformat()
    return render_template("orgchart/end_holding.html", form=form, ending=ending)


# --- CSV import ----------------------------------------------------------------------------


@bp.route("/import", methods=["GET", "POST"])
@admin_required
def import_csv() -> ResponseReturnValue:
    form = ImportForm()
    context = {"form": form, "columns": csv_rows.COLUMNS, "row_errors": []}
    if request.method == "GET":
        return render_template("orgchart/import.html", **context)
    if not form.validate_on_submit():
        return render_template("orgchart/import.html", **context), 422
    try:
        job_id = imports.start_import(
            current_actor(),
            kind=form.kind.data,
            filename=form.file.data.filename or "",
            data=form.file.data.read(),
        )
    except RowErrors as error:
        context["summary"] = message_for(error)
        context["row_errors"] = [(e, message_for(e)) for e in error.rows]
        return render_template("orgchart/import.html", **context), 422
    except DomainError as error:
        attach_error(form, error)
        return render_template("orgchart/import.html", **context), 422
    return redirect(url_for(".import_status", job_id=job_id), code=303)


@bp.post("/import/<int:job_id>/restart")
@admin_required
def restart_import(job_id: int) -> ResponseReturnValue:
    try:
        imports.restart_import(current_actor(), job_id)
    except NotFound:
        raise
    except DomainError as error:
        flash(message_for(error), "error")
    return redirect(url_for(".import_status", job_id=job_id), code=303)


@bp.get("/import/<int:job_id>")
@admin_required
def import_status(job_id: int) -> ResponseReturnValue:
    """The import as it goes: the whole page, or (for htmx's polling) its status part."""
    job = imports.get_import(current_actor(), job_id)
    problems = [(e, message_for(e)) for e in job.problems]
    failure = message_for(DomainError(job.failure)) if job.failure else None
    polled = request.headers.get("HX-Request") == "true"
    template = "orgchart/_import_status.html" if polled else "orgchart/import_status.html"
    return render_template(template, job=job, problems=problems, failure=failure)
