"""My documents, the new-document form and the draft editor.

Any member may use these pages: the tenancy hook has already answered 404 to anyone who
is not a member of the organization in the URL, and the services scope every read to
the actor (a document the actor may not see does not exist).
"""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import login_required

from portal.documents.forms import (
    DocumentForm,
    declared_inputs,
    document_form,
    field_values,
    initial_data,
    input_name,
)
from portal.documents.queries.detail import document_for_editing
from portal.documents.queries.lists import my_documents_page, new_document_setup
from portal.documents.services import create_document, update_document
from portal.documents.views import bp
from portal.domain.diagram import state_tone
from portal.domain.errors import DomainError
from portal.domain.fields import FieldErrors
from portal.domain.graph import Graph
from portal.web.forms import attach_error, query_page
from portal.web.messages import message_for
from portal.web.request_input import current_request_id, multiline
from portal.web.tenancy import current_actor

PER_PAGE = 25


def _locale() -> str:
    return str(get_locale())


def _tone(graph: Graph, key: str) -> str:
    state = graph.state(key)
    return state_tone(state.role if state else "")


def detail_url(reference: str) -> str:
    return url_for("documents.detail", reference=reference)


def _attach(form: DocumentForm, error: DomainError) -> None:
    """Each refusal beside its input: ``fields.<key>`` names a generated one."""
    if isinstance(error, FieldErrors):
        form.form_errors.append(message_for(error))
        for each in error.errors:
            _attach(form, each)
        return
    if error.field and error.field.startswith("fields."):
        name = input_name(error.field.removeprefix("fields."))
        if name in form:
            form[name].errors = [*form[name].errors, message_for(error)]
            return
    attach_error(form, error)


# --- my documents -----------------------------------------------------------------------


@bp.get("/")
@login_required
def index() -> ResponseReturnValue:
    actor = current_actor()
    kind = request.args.get("kind", "").strip() or None
    state = request.args.get("state", "").strip() or None
    found = my_documents_page(
        actor,
        kind=kind,
        state=state,
        page=query_page(),
        per_page=PER_PAGE,
    )
    startable = found.startable
    locale = _locale()
    rows = [
        {
            "row": listed.row,
            "url": detail_url(listed.row.reference),
            "kind_label": listed.graph.labels.text(locale) or listed.row.kind,
            "state_label": listed.graph.state_label(listed.row.state, locale),
            "tone": _tone(listed.graph, listed.row.state),
        }
        for listed in found.rows
    ]
    # The states to filter by: those of the chosen kind's current flow, else of all.
    states: dict[str, str] = {}
    for k in startable:
        if kind in (None, k.kind):
            for s in found.current[k.kind].states:
                states.setdefault(s.key, s.labels.text(locale))
    return render_template(
        "documents/list.html",
        page=found.listed,
        rows=rows,
        startable=startable,
        kinds=[(k.kind, k.labels.text(locale) or k.kind) for k in startable],
        states=sorted(states.items(), key=lambda item: item[1].lower()),
        chosen_kind=kind or "",
        chosen_state=state or "",
        filtered=bool(kind or state),
    )


# --- a new document ---------------------------------------------------------------------


def _form_page(
    form: DocumentForm, graph: Graph, status: int = 200, **context: Any
) -> ResponseReturnValue:
    return (
        render_template(
            "documents/form.html",
            form=form,
            declared=declared_inputs(form, graph),
            kind_label=graph.labels.text(_locale()) or graph.kind,
            **context,
        ),
        status,
    )


@bp.route("/new/<kind>", methods=["GET", "POST"])
@login_required
@multiline("description")
def new(kind: str) -> ResponseReturnValue:
    actor = current_actor()
    # The form is generated from the flow's fields, so it is read before the post can
    # be parsed; saving is a unit of work of its own.
    setup = new_document_setup(actor, kind)
    form = document_form(setup.graph, _locale(), currency=setup.currency)
    page = {"currency": setup.currency, "action": url_for(".new", kind=setup.kind)}
    if not form.validate_on_submit():
        return _form_page(form, setup.graph, 422 if form.is_submitted() else 200, **page)
    # A validated form has its amount: InputRequired, and the field refuses what holds
    # no number.
    assert form.amount.data is not None
    try:
        created = create_document(
            actor,
            kind=setup.kind,
            title=form.title.data or "",
            amount=form.amount.data,
            description=form.description.data or "",
            fields=field_values(form, setup.graph),
        )
    except DomainError as error:
        _attach(form, error)
        return _form_page(form, setup.graph, 422, **page)
    flash(_("%(reference)s saved as a draft.", reference=created.reference), "success")
    return redirect(detail_url(created.reference))


# --- editing a draft --------------------------------------------------------------------


@bp.route("/<reference>/edit", methods=["GET", "POST"])
@login_required
@multiline("description")
def edit(reference: str) -> ResponseReturnValue:
    actor = current_actor()
    # Visible to an approver or an admin, but only the requester's to edit. The form is
    # generated from the pinned flow's fields, so it is read before the post is parsed.
    document = document_for_editing(actor, reference)
    graph = document.graph
    form = document_form(graph, _locale(), currency=document.currency, data=initial_data(document))
    page = {
        "currency": document.currency,
        "action": url_for(".edit", reference=document.reference),
        "document": document,
        "detail": detail_url(document.reference),
        "frozen": not document.is_draft,
    }
    if not document.is_draft:
        form.form_errors.append(_frozen(graph, document.state))
        status = 409 if form.is_submitted() else 200
        return _form_page(form, graph, status, **page)
    if not form.validate_on_submit():
        return _form_page(form, graph, 422 if form.is_submitted() else 200, **page)
    try:
        update_document(
            actor,
            document.reference,
            title=form.title.data or "",
            description=form.description.data or "",
            amount=form.amount.data,
            fields=field_values(form, graph),
            request_id=current_request_id(),
        )
    except DomainError as error:
        if error.code == "document_frozen":  # it moved on while the form was open
            form.form_errors.append(_frozen(graph, str(error.params.get("state", ""))))
            return _form_page(form, graph, 409, **{**page, "frozen": True})
        _attach(form, error)
        return _form_page(form, graph, 422, **page)
    flash(_("Your changes to %(reference)s are saved.", reference=document.reference), "success")
    return redirect(detail_url(document.reference))


def _frozen(graph: Graph, state: str) -> str:
    return message_for(DomainError("document_frozen", state=graph.state_label(state, _locale())))
