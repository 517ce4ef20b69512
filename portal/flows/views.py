"""Flow admin pages: the list with its readiness warnings, one flow with its draft,
violations and versions, import, export, publish and discard."""

from __future__ import annotations

from importlib import resources

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.domain.errors import Conflict, DomainError, NotFound
from portal.domain.graph import (
    BreachAction,
    FieldType,
    Gate,
    GranteeKind,
    OnVacancy,
    StateRole,
)
from portal.domain.layout import STATE_BOX_HEIGHT, STATE_BOX_WIDTH
from portal.domain.locales import SUPPORTED_LOCALES
from portal.domain.validate import errors_in
from portal.flows import queries, services, wording
from portal.flows.editor_text import EDITOR_TEXT
from portal.flows.forms import ImportForm, RevisionForm
from portal.web.auth import admin_required
from portal.web.errors import status_for
from portal.web.forms import attach_error
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("flows", __name__, url_prefix="/o/<org>/flows")
schema_bp = Blueprint("schema", __name__, url_prefix="/schema")

# A grant in words, for every page that lists grants (flows, the route preview).
bp.add_app_template_global(wording.grantee_words)
bp.add_app_template_global(wording.floor_words)

GRAPH_SCHEMA = resources.files("portal.domain") / "graph.schema.json"

STATE_ROLES = {
    StateRole.DRAFT: _l("Draft"),
    StateRole.PENDING: _l("Pending"),
    StateRole.ACCRUAL: _l("Accrual (money committed)"),
    StateRole.PAYOUT: _l("Payout (money leaves)"),
    StateRole.ACKNOWLEDGED: _l("Acknowledged"),
    StateRole.DISPUTE: _l("Dispute"),
    StateRole.REJECTED: _l("Rejected"),
    StateRole.CANCELLED: _l("Cancelled"),
    StateRole.CUSTOM: _l("Custom"),
}
GATES = {
    Gate.REQUESTER: _l("The requester"),
    Gate.TARGET: _l("Approvers of the next state"),
    Gate.SOURCE: _l("Approvers of this state"),
    Gate.ADVANCE: _l("Whoever may approve from here"),
}
BREACH_ACTIONS = {
    BreachAction.REMIND: _l("remind"),
    BreachAction.ESCALATE_UP: _l("escalate one seat up"),
    BreachAction.REASSIGN: _l("reassign to the assignee's superior"),
    BreachAction.AUTO: _l("fire automatically"),
}


def _vocabulary() -> dict[str, object]:
    return {
        "STATE_ROLES": STATE_ROLES,
        "GATES": GATES,
        "BREACH_ACTIONS": BREACH_ACTIONS,
    }


def _with_messages(violations):  # type: ignore[no-untyped-def]
    return [(v, message_for(v)) for v in violations]


# --- the list -----------------------------------------------------------------------


def _index_page(form: ImportForm, status: int = 200):  # type: ignore[no-untyped-def]
    actor = current_actor()
    warnings = services.flow_readiness(actor)
    return (
        render_template(
            "flows/index.html",
            flows=services.list_flows(actor),
            warnings=[(w, message_for(w)) for w in warnings],
            form=form,
        ),
        status,
    )


@bp.get("/")
@admin_required
def index():  # type: ignore[no-untyped-def]
    return _index_page(ImportForm())


@bp.post("/import")
@admin_required
def import_new():  # type: ignore[no-untyped-def]
    form = ImportForm()
    if not form.validate_on_submit():
        return _index_page(form, 422)
    try:
        draft = services.import_draft(current_actor(), form.file.data.read())
    except DomainError as error:
        attach_error(form, error, default_field="file")
        return _index_page(form, 422)
    _flash_saved(draft)
    return redirect(url_for(".flow", kind=draft.kind))


def _flash_saved(draft: services.DraftView) -> None:
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


def _flow_page(kind: str, form: ImportForm | None = None, status: int = 200, violations=None):  # type: ignore[no-untyped-def]
    actor = current_actor()
    draft = services.get_draft(actor, kind)
    versions = queries.list_versions(actor, kind)
    form = form or ImportForm(revision=str(draft.revision))
    return (
        render_template(
            "flows/flow.html",
            kind=kind,
            draft=draft,
            violations=_with_messages(violations if violations is not None else draft.violations),
            versions=versions,
            refs=services.describe_references(actor, draft.graph),
            form=form,
            **_vocabulary(),
        ),
        status,
    )


@bp.get("/<kind>/")
@admin_required
def flow(kind: str):  # type: ignore[no-untyped-def]
    return _flow_page(kind)


ON_VACANCY = {OnVacancy.ESCALATE: _l("escalate to the seat above"), OnVacancy.REFUSE: _l("refuse")}
FIELD_TYPES = {
    FieldType.TEXT: _l("Text"),
    FieldType.NUMBER: _l("Number"),
    FieldType.MONEY: _l("Money"),
    FieldType.DATE: _l("Date"),
    FieldType.CHOICE: _l("Choice"),
    FieldType.BOOL: _l("Yes or no"),
}
GRANTEE_KINDS = {
    GranteeKind.MEMBER: _l("A member"),
    GranteeKind.POSITION: _l("A seat"),
    GranteeKind.SUPERIOR: _l("The requester's superior"),
    GranteeKind.UNIT_HEAD: _l("The head of the requester's unit"),
    GranteeKind.LEVELS_UP: _l("Seats above the requester"),
    GranteeKind.ROLE: _l("Everyone with a role"),
}


def _in(locale: str, text: object) -> str:
    """A lazy string rendered in ``locale`` rather than the reader's."""
    with force_locale(locale):
        return str(text)


def _editor_setup(kind: str) -> dict[str, object]:
    """What the editor script needs besides the draft: the API's address, the
    vocabulary and every word it shows, in the admin's language (the script itself
    holds no text)."""

    def words(mapping: dict[str, object]) -> list[list[str]]:
        return [[key, str(text)] for key, text in mapping.items()]

    return {
        "api": url_for("flows_api.draft", kind=kind).removesuffix("/draft"),
        "export": url_for("flows.export", kind=kind),
        "kind": kind,
        "currency": services.base_currency(current_actor()),
        "locales": list(SUPPORTED_LOCALES),
        "roles": words(STATE_ROLES),
        "gates": words(GATES),
        "breach": words(BREACH_ACTIONS),
        "vacancy": words(ON_VACANCY),
        "grantees": words(GRANTEE_KINDS),
        "field_types": words(FIELD_TYPES),
        "box": {"width": STATE_BOX_WIDTH, "height": STATE_BOX_HEIGHT},
        "text": {key: str(text) for key, text in EDITOR_TEXT.items()},
        # A new state's name in every language, not only the admin's.
        "new_state": {
            locale: _in(locale, EDITOR_TEXT["new_state"]) for locale in SUPPORTED_LOCALES
        },
    }


@bp.get("/<kind>/editor")
@admin_required
def editor(kind: str):  # type: ignore[no-untyped-def]
    # The script loads (and validates) the draft; the page needs its name, and a 404
    # for a kind this organization lacks.
    graph = services.draft_graph(current_actor(), kind)
    return render_template("flows/editor.html", kind=kind, graph=graph, setup=_editor_setup(kind))


def _revision() -> int:
    form = RevisionForm()
    if not form.validate_on_submit():
        raise DomainError("bad_request")
    return form.revision.data  # type: ignore[return-value]


@bp.post("/<kind>/import")
@admin_required
def import_over(kind: str):  # type: ignore[no-untyped-def]
    form = ImportForm()
    if not form.validate_on_submit():
        return _flow_page(kind, form, 422)
    try:
        revision = int(form.revision.data or 0)
    except ValueError:
        raise DomainError("bad_request") from None
    try:
        draft = services.import_draft(
            current_actor(), form.file.data.read(), kind=kind, revision=revision
        )
    except NotFound:
        raise
    except DomainError as error:
        attach_error(form, error, default_field="file")
        return _flow_page(kind, form, status_for(error))
    _flash_saved(draft)
    return redirect(url_for(".flow", kind=kind))


@bp.post("/<kind>/publish")
@admin_required
def publish(kind: str):  # type: ignore[no-untyped-def]
    try:
        version = services.publish_draft(current_actor(), kind, revision=_revision())
    except services.FlowInvalid as refused:
        flash(message_for(refused), "error")
        return _flow_page(kind, status=422, violations=refused.violations)
    except Conflict as conflict:  # stale or gone: show the flow as it is now, and why
        flash(message_for(conflict), "error")
        return _flow_page(kind, status=409)
    flash(_("Published version %(version)s.", version=version.version), "success")
    return redirect(url_for(".flow", kind=kind))


@bp.post("/<kind>/discard")
@admin_required
def discard(kind: str):  # type: ignore[no-untyped-def]
    try:
        services.discard_draft(current_actor(), kind, revision=_revision())
    except Conflict as conflict:
        flash(message_for(conflict), "error")
        return _flow_page(kind, status=409)
    flash(_("The draft was discarded."), "success")
    return redirect(url_for(".flow", kind=kind))


@bp.get("/<kind>/export.json")
@admin_required
def export(kind: str):  # type: ignore[no-untyped-def]
    raw = request.args.get("version")
    if raw is not None and not raw.isdigit():
        raise NotFound("flow_version")
    export = services.export_flow(
        current_actor(), kind, version=int(raw) if raw is not None else None
    )
    return Response(
        export.body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{export.filename}"'},
    )


# --- the graph's JSON Schema --------------------------------------------------------


@schema_bp.get("/flow-graph.json")
def graph_schema():  # type: ignore[no-untyped-def]
    return Response(GRAPH_SCHEMA.read_text(encoding="utf-8"), mimetype="application/schema+json")
