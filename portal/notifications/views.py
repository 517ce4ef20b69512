"""The bell: a member's in-app notifications (tasks, reminders, escalations, documents
moved), worded in the reader's language when shown; opening one marks it read and leads
to its document; marking one or all read; and the member's notice preferences (which
kinds reach them in the portal and by mail, and a daily digest instead of single mails)."""

from __future__ import annotations

from flask import Blueprint, flash, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import login_required

from portal.domain.errors import DomainError
from portal.domain.notice_preferences import (
    CHANNELS,
    DEFAULTS,
    NoticeSettings,
    field_name,
)
from portal.domain.text_input import is_id
from portal.notifications.queries import notice_preferences_of, notifications_page, offered_kinds
from portal.notifications.services import (
    mark_notifications_read,
    open_notification,
    submit_notice_preferences,
)
from portal.notifications.wording import notice_text
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("notifications", __name__, url_prefix="/o/<org>/notifications")


@bp.get("/")
@login_required
def index() -> ResponseReturnValue:
    actor = current_actor()
    page = notifications_page(actor)
    # The bell's number comes with the page: no transaction of its own.
    g.unread_count = page.attention
    locale = str(get_locale())
    return render_template(
        "notifications/index.html",
        items=[(n, notice_text(n, locale, actor.member_id)) for n in page.items],
        unread_total=page.unread,
    )


@bp.get("/<int:notification_id>")
@login_required
def open_one(notification_id: int) -> ResponseReturnValue:
    """Following a notification: it is read now, and the reader lands on its document."""
    reference = open_notification(current_actor(), notification_id)
    if reference is None:
        return redirect(url_for("notifications.index"))
    return redirect(url_for("documents.detail", reference=reference))


@bp.post("/read")
@login_required
def mark_read() -> ResponseReturnValue:
    """One notification (``id``) or, without one, all of them."""
    raw = request.form.get("id")
    if raw is None:
        ids = None
    elif is_id(raw):
        ids = [int(raw)]
    else:  # names no notification: nothing to mark, and no reason to say more
        ids = []
    mark_notifications_read(current_actor(), ids)
    return redirect(url_for("notifications.index"))


@bp.route("/preferences", methods=["GET", "POST"])
@login_required
def preferences() -> ResponseReturnValue:
    """Which kinds of notice reach the member in the portal and by mail (every box of the
    form is sent when ticked; one not sent is off), and the daily digest."""
    actor = current_actor()
    if request.method == "GET":
        return _preferences_page(notice_preferences_of(actor))
    pairs = [(k, v) for k, v in request.form.items(multi=True) if k != "csrf_token"]
    try:
        submit_notice_preferences(actor, pairs)
    except DomainError as error:
        # Refused whole: the page shows the choices as they still stand.
        return _preferences_page(notice_preferences_of(actor), error=message_for(error), status=422)
    flash(_("Your notification preferences are saved."), "success")
    return redirect(url_for(".preferences"), code=303)


def _preferences_page(
    settings: NoticeSettings, *, error: str | None = None, status: int = 200
) -> ResponseReturnValue:
    kinds = offered_kinds(current_actor())
    return render_template(
        "notifications/preferences.html",
        kinds=kinds,
        channels=CHANNELS,
        settings=settings,
        defaults=DEFAULTS,
        field_name=field_name,
        error=error,
    ), status
