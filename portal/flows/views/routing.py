"""The org chart's "Who would approve?" page (``/o/<org>/admin/chart/routing``): a flow,
a requester and an amount in; every step out, with who decides it or what strands it
and a link to where that is fixed. htmx asks for the same page as the inputs change and
swaps only the result."""

from __future__ import annotations

from functools import partial
from typing import Any

from flask import Blueprint, render_template, request, url_for
from flask.typing import ResponseReturnValue
from wtforms.fields import SelectChoice

from portal.domain.resolution import Gap, GapReason
from portal.flows.forms import RoutePreviewForm
from portal.flows.services.route_preview import RoutePreview, RouteQuery, routing_page
from portal.flows.wording.exclusions import exclusion_text, exclusive_note
from portal.web.auth import admin_required
from portal.web.forms import attach_error
from portal.web.messages import gap_message
from portal.web.money_input import number_form, reader_locale
from portal.web.tenancy import current_actor

bp = Blueprint("routing", __name__, url_prefix="/o/<org>/admin/chart")

NONE_CHOICE = SelectChoice("", "—")


def _gap_view(gap: Gap, preview: RoutePreview) -> tuple[str, str]:
    """A gap in plain words, and where to fix it."""
    message = gap_message(gap.reason, preview.gap_names(gap))
    # Where each reason is fixed: an endpoint and its arguments.
    fixes: dict[str, tuple[str, dict[str, Any]]] = {
        GapReason.VACANT: ("orgchart.new_holding", {"position_id": gap.position_id}),
        GapReason.POSITION_RETIRED: ("orgchart.edit_position", {"position_id": gap.position_id}),
        GapReason.ABOVE_ROOT: ("orgchart.edit_position", {"position_id": gap.position_id}),
        GapReason.NO_PRIMARY_POSITION: ("orgchart.new_holding", {"member_id": gap.member_id}),
        GapReason.NO_UNIT_HEAD: ("orgchart.edit_unit", {"unit_id": gap.unit_id}),
        GapReason.MEMBER_INACTIVE: ("members.member", {"member_id": gap.member_id}),
        GapReason.ROLE_EMPTY: ("members.members", {}),
        GapReason.ONLY_THE_REQUESTER: ("orgchart.chart", {}),
        GapReason.NO_BAND: ("flows.flow", {"kind": preview.kind}),
        # More people on the chart, or other grants on the flow.
        GapReason.EXCLUSIVE_APPROVAL: ("flows.flow", {"kind": preview.kind}),
    }
    endpoint, args = fixes.get(gap.reason, ("orgchart.chart", {}))
    if any(value is None for value in args.values()):
        endpoint, args = "orgchart.chart", {}
    return message, url_for(endpoint, **args)


@bp.get("/routing")
@admin_required
def preview() -> ResponseReturnValue:
    """Who would approve a document: the page, and (through htmx) its own update."""
    actor = current_actor()
    form = RoutePreviewForm(request.args)
    query, status = None, 200
    # While the admin is still filling the form in, an update is not an error yet.
    incomplete = request.headers.get("HX-Request") == "true" and not all(
        request.args.get(name, "").strip() for name in ("kind", "member_id", "amount")
    )
    if request.args and not incomplete:
        if form.validate() and form.member_id.data is not None:
            query = RouteQuery(
                kind=form.kind.data,
                member_id=form.member_id.data,
                amount=form.amount_value,
                # Left empty, the currency is the base one the form shows.
                currency=form.currency.data or None,
                on=form.as_of.data,
            )
        else:
            status = 422
    page = routing_page(actor, query)
    if page.refusal is not None:
        attach_error(form, page.refusal)
        status = 422
    choices = page.choices
    form.kind.choices = [SelectChoice(f.kind, f.labels.text(actor.locale)) for f in choices.flows]
    form.member_id.choices = [
        NONE_CHOICE,
        *(SelectChoice(str(m.id), f"{m.name} <{m.email}>") for m in choices.members),
    ]
    if not form.currency.data:
        form.currency.data = choices.currency
    preview = page.preview
    return (
        render_template(
            "flows/routing.html",
            form=form,
            preview=preview,
            incomplete=incomplete,
            describe_gap=partial(_gap_view, preview=preview) if preview else None,
            describe_exclusion=(
                partial(
                    exclusion_text,
                    graph=preview.graph,
                    members=preview.members,
                    locale=actor.locale,
                )
                if preview
                else None
            ),
            exclusive_note=exclusive_note,
            refs=page.names,
            # 1234.50 as this admin writes an amount of the base currency.
            amount_example=number_form(reader_locale(), choices.currency).example,
        ),
        status,
    )
