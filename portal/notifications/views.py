"""The bell: a member's in-app notifications (task assigned, document moved), worded in
the reader's language when shown; opening one marks it read and leads to its document;
marking one or all read."""

from __future__ import annotations

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_login import login_required

from portal.domain.text_input import is_id
from portal.notifications.queries import notifications_page
from portal.notifications.services import mark_notifications_read, open_notification
from portal.notifications.wording import notice_text
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
