"""The bell: a member's in-app notifications (task assigned, document moved), and
marking them read."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_login import login_required

from portal.domain.text_input import is_id
from portal.notifications.queries import list_notifications
from portal.notifications.services import mark_notifications_read
from portal.web.messages import message_for
from portal.web.tenancy import current_actor

bp = Blueprint("notifications", __name__, url_prefix="/o/<org>/notifications")


@bp.get("/")
@login_required
def index() -> ResponseReturnValue:
    actor = current_actor()
    items = list_notifications(actor)
    return render_template(
        "notifications/index.html",
        items=[(n, message_for(n)) for n in items],
        unread=sum(1 for n in items if not n.read),
    )


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
