"""The Operations page (``/o/<org>/operations``, admins): the organization's overdue
tasks, its outbox backlog and dead letters (with a Retry button each), when the
deadline sweep last ran, the workers' heartbeats and the mail server's state."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.operations import queries, services
from portal.web.auth import admin_required
from portal.web.i18n import format_elapsed
from portal.web.tenancy import current_actor

bp = Blueprint("operations", __name__, url_prefix="/o/<org>/operations")

# What each outbox topic is, in words (the topic itself is shown for any other).
TOPIC_NAMES = {
    "notify.task_assigned": _l("Notice: a task was assigned"),
    "notify.document_moved": _l("Notice: a document moved on"),
    "notify.due_soon": _l("Reminder: a deadline is near"),
    "notify.overdue": _l("Reminder: a deadline has passed"),
    "notify.escalated": _l("Notice: a task was escalated"),
    "notify.escalated_away": _l("Notice: a task was escalated above its holder"),
    "notify.reassigned": _l("Notice: a task was reassigned"),
    "notify.escalation_gap": _l("Notice to admins: nobody to escalate to"),
    "notify.auto_refused": _l("Notice to admins: an automatic move was refused"),
    "notify.cover_set": _l("Notice: cover was set"),
    "notify.cover_started": _l("Notice: a cover began"),
    "notify.cover_ended": _l("Notice: a cover ended"),
    "notify.cover_summary": _l("Notice: what was decided under a cover"),
    "notify.cover_revoked": _l("Notice: a cover was revoked"),
    "notify.task_handed_over": _l("Notice: a task was handed over"),
    "mail.invitation": _l("Mail: an invitation"),
    "mail.password_reset": _l("Mail: a password reset"),
    "mail.password_changed": _l("Mail: a password was changed"),
    "mail.two_factor_on": _l("Mail: two-factor sign-in turned on"),
    "mail.two_factor_off": _l("Mail: two-factor sign-in turned off"),
    "mail.digest": _l("Mail: a daily digest"),
    "mail.notice": _l("Mail: a notice (a task, a reminder, an escalation)"),
}


def topic_name(topic: str) -> str:
    name = TOPIC_NAMES.get(topic)
    if name is not None:
        return str(name)
    if topic.startswith("mail."):
        return _("Mail (%(topic)s)", topic=topic)
    if topic.startswith("notify."):
        return _("Notice (%(topic)s)", topic=topic)
    return topic


# RQ's words for a worker's state.
WORKER_STATES = {
    "idle": _l("idle"),
    "busy": _l("busy"),
    "started": _l("starting"),
    "suspended": _l("suspended"),
}


def worker_state(state: str) -> str:
    return str(WORKER_STATES.get(state, state))


@bp.get("/")
@admin_required
def index() -> ResponseReturnValue:
    overview = queries.operations_overview(
        current_actor(), current_app.extensions["portal.settings"]
    )
    return render_template(
        "operations/index.html",
        ops=overview,
        topic_name=topic_name,
        worker_state=worker_state,
        elapsed=format_elapsed,
    )


@bp.post("/dead-letters/<int:outbox_id>/retry")
@admin_required
def retry(outbox_id: int) -> ResponseReturnValue:
    # A refusal (another organization's id: 404; delivered or still tried: 409) is
    # answered by the error handler with its message.
    services.retry_dead_letter(current_actor(), outbox_id)
    flash(_("Event %(id)s will be delivered again shortly.", id=outbox_id), "success")
    return redirect(url_for(".index"), code=303)
