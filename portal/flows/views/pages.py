"""Flow admin pages: the list with its readiness warnings, one flow with its draft,
violations and versions, the editor, import, export, publish and discard."""

from __future__ import annotations

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _

from portal.domain.errors import Conflict, DomainError, NotFound
from portal.domain.layout import STATE_BOX_HEIGHT, STATE_BOX_WIDTH
from portal.domain.money import minor_digits
from portal.domain.text_input import is_id, whole_number
from portal.domain.validate import Violation, errors_in
from portal.flows.forms import ImportForm, RevisionForm
from portal.flows.services import confirming, drafts, pages, publishing, transfer
from portal.flows.services.validation import FlowInvalid
from portal.flows.wording.changes import publish_summary, summary_sections
from portal.flows.wording.deadlines import deadline_words
from portal.flows.wording.editor import editor_words
from portal.flows.wording.grants import floor_words, grantee_words
from portal.flows.wording.vocabulary import page_vocabulary
from portal.web.auth import admin_required
from portal.web.errors import status_for
from portal.web.forms import attach_error
from portal.web.messages import message_for
from portal.web.money_input import number_form, reader_locale
from portal.web.tenancy import current_actor

bp = Blueprint("flows", __name__, url_prefix="/o/<org>/flows")

# A grant in words, for every page that lists grants (flows, the route preview).
bp.add_app_template_global(grantee_words)
bp.add_app_template_global(floor_words)
bp.add_app_template_global(deadline_words)


def _with_messages(violations: list[Violation]) -> list[tuple[Violation, str]]:
    return [(v, message_for(v)) for v in violations]


# --- the list -----------------------------------------------------------------------


def _index_page(form: ImportForm, status: int = 200) -> ResponseReturnValue:
    overview = pages.flows_overview(current_actor())
    return (
        render_template(
            "flows/index.html",
            flows=overview.flows,
            warnings=[(w, message_for(w)) for w in overview.warnings],
            form=form,
        ),
        status,
    )


@bp.get("/")
@admin_required
def index() -> ResponseReturnValue:
    return _index_page(ImportForm())


@bp.post("/import")
@admin_required
def import_new() -> ResponseReturnValue:
    form = ImportForm()
    if not form.validate_on_submit():
        return _index_page(form, 422)
    try:
        draft = transfer.import_draft(current_actor(), form.file.data.read())
    except DomainError as error:
        attach_error(form, error, default_field="file")
        return _index_page(form, 422)
    _flash_imported(draft)
    return redirect(url_for(".flow", kind=draft.kind))


def _flash_imported(draft: drafts.DraftView) -> None:
    errors = len(errors_in(draft.violations))
    if errors:
        flash(
            _(
                "Imported as draft revision %(revision)s. It has problems to fix before it can be published.",
                revision=draft.revision,
            ),
            "warning",
        )
    else:
        flash(
            _(
                "Imported as draft revision %(revision)s. It is ready to publish.",
                revision=draft.revision,
            ),
            "success",
        )


# --- one flow -----------------------------------------------------------------------


def _flow_page(
    kind: str,
    form: ImportForm | None = None,
    status: int = 200,
    violations: list[Violation] | None = None,
) -> ResponseReturnValue:
    page = pages.flow_page(current_actor(), kind)
    form = form or ImportForm(revision=str(page.draft.revision))
    return (
        render_template(
            "flows/flow.html",
            kind=kind,
            draft=page.draft,
            violations=_with_messages(
                violations if violations is not None else page.draft.violations
            ),
            versions=page.versions,
            refs=page.names,
            form=form,
            **page_vocabulary(),
        ),
        status,
    )


@bp.get("/<kind>/")
@admin_required
def flow(kind: str) -> ResponseReturnValue:
    return _flow_page(kind)


def _number_form_setup(currency: str) -> dict[str, object]:
    form = number_form(reader_locale(), currency)
    return {
        "decimal": form.decimal,
        "group": form.group,
        "grouping": list(form.grouping),
        "example": form.example,
    }


@bp.get("/<kind>/editor")
@admin_required
def editor(kind: str) -> ResponseReturnValue:
    # The script loads (and validates) the draft; the page needs its name, and a 404
    # for a kind this organization lacks.
    page = pages.editor_page(current_actor(), kind)
    # What the editor script needs besides the draft: the API's address, the size of a
    # state's box, and every word it shows, in the admin's language.
    setup = {
        "api": url_for("flows_api.draft", kind=kind).removesuffix("/draft"),
        "export": url_for("flows.export", kind=kind),
        "kind": kind,
        "currency": page.currency,
        # Decimals a floor may have in that currency (MYR 2, JPY 0).
        "currency_places": minor_digits(page.currency),
        # How the admin writes numbers: a floor is read as they type amounts elsewhere.
        "number_form": _number_form_setup(page.currency),
        # The locale money is shown in (language and the organization's country).
        "locale": reader_locale().replace("_", "-"),
        "box": {"width": STATE_BOX_WIDTH, "height": STATE_BOX_HEIGHT},
        **editor_words(),
    }
    return render_template("flows/editor.html", kind=kind, graph=page.graph, setup=setup)


def _revision() -> int:
    form = RevisionForm()
    if not form.validate_on_submit() or form.revision.data is None:
        raise DomainError("bad_request")
    return int(form.revision.data)


@bp.post("/<kind>/import")
@admin_required
def import_over(kind: str) -> ResponseReturnValue:
    form = ImportForm()
    if not form.validate_on_submit():
        return _flow_page(kind, form, 422)
    try:
        revision = whole_number(form.revision.data or "0", field="revision")
    except DomainError:
        # The page wrote this hidden field: a forged one is nothing a person could fix.
        attach_error(form, DomainError("bad_request"), default_field="file")
        return _flow_page(kind, form, 422)
    try:
        draft = transfer.import_draft(
            current_actor(), form.file.data.read(), kind=kind, revision=revision
        )
    except NotFound:
        raise
    except DomainError as error:
        attach_error(form, error, default_field="file")
        return _flow_page(kind, form, status_for(error))
    _flash_imported(draft)
    return redirect(url_for(".flow", kind=kind))


@bp.get("/<kind>/publish")
@admin_required
def confirm_publish(kind: str) -> ResponseReturnValue:
    """Publishing from the flow page asks first, with the editor's summary of what
    changes; the form it shows posts the revision it summarised."""
    confirmation = confirming.publish_confirmation(current_actor(), kind)
    draft = confirmation.draft
    summary = publish_summary(confirmation.changes, str(get_locale()))
    return render_template(
        "flows/publish.html",
        kind=kind,
        draft=draft,
        errors=len(errors_in(draft.violations)),
        next_version=confirmation.next_version,
        summary=summary,
        sections=summary_sections(summary),
    )


@bp.post("/<kind>/publish")
@admin_required
def publish(kind: str) -> ResponseReturnValue:
    try:
        published = publishing.publish_draft(current_actor(), kind, revision=_revision())
    except FlowInvalid as refused:
        flash(message_for(refused), "error")
        return _flow_page(kind, status=422, violations=refused.violations)
    except Conflict as conflict:  # stale or gone: show the flow as it is now, and why
        flash(message_for(conflict), "error")
        return _flow_page(kind, status=409)
    flash(_("Published version %(version)s.", version=published.view.version), "success")
    return redirect(url_for(".flow", kind=kind))


@bp.post("/<kind>/discard")
@admin_required
def discard(kind: str) -> ResponseReturnValue:
    try:
        drafts.discard_draft(current_actor(), kind, revision=_revision())
    except Conflict as conflict:
        flash(message_for(conflict), "error")
        return _flow_page(kind, status=409)
    flash(_("The draft was discarded."), "success")
    return redirect(url_for(".flow", kind=kind))


@bp.get("/<kind>/export.json")
@admin_required
def export(kind: str) -> ResponseReturnValue:
    raw = request.args.get("version")
    if raw is not None and not is_id(raw):
        raise NotFound("flow_version")
    exported = transfer.export_flow(
        current_actor(), kind, version=int(raw) if raw is not None else None
    )
    return Response(
        exported.body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{exported.filename}"'},
    )
