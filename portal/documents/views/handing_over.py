"""Handing the reader's open task to a colleague from the document page: a member, a
reason and the state the page showed (``documents.handover``). A handover that goes
through is a redirect to the page with a confirmation; a refused one is the page again,
the reason beside the field it is about and what was typed kept."""

from __future__ import annotations

from dataclasses import dataclass

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import login_required

from portal.documents.handover import hand_over_on_page
from portal.documents.views import bp
from portal.documents.views.detail import _page
from portal.domain.text_input import is_id
from portal.web.errors import status_for
from portal.web.messages import message_for
from portal.web.request_input import current_request_id
from portal.web.tenancy import current_actor

# The fields a refusal can stand beside; any other refusal is said at the top.
_FIELDS = ("to_member", "reason")


@dataclass(frozen=True)
class HandoverAttempt:
    """A refused handover as the form shows it again: what was chosen and typed, and
    the refusal beside its field."""

    to_member: str
    reason: str
    field: str | None
    error: str


@bp.post("/<reference>/handover")
@login_required
def hand_over(reference: str) -> ResponseReturnValue:
    actor = current_actor()
    chosen = request.form.get("to_member", "")
    reason = request.form.get("reason", "")
    outcome = hand_over_on_page(
        actor,
        reference,
        # Not an id: nobody (no member has id 0), refused like an unknown one.
        to_member=int(chosen) if is_id(chosen) else 0,
        reason=reason,
        seen_state=request.form.get("seen_state", ""),
        request_id=current_request_id(),
    )
    refused = outcome.refusal
    if refused is not None:
        assert outcome.detail is not None  # a refusal always comes with the page
        field = refused.field if refused.field in _FIELDS else None
        if refused.code == "stale_state":
            text = _(
                "This document has moved on since you looked at it: nothing was handed over. Here it is as it stands now."
            )
        else:
            text = message_for(refused)
        return _page(
            outcome.detail,
            status_for(refused),
            message=None if field else ("error", text),
            handover=HandoverAttempt(chosen[:32], reason[:2000], field, text),
        )
    assert outcome.handed is not None  # not refused, so handed over
    flash(
        _(
            "Handed over to %(name)s: the task is theirs now, and you have both been told.",
            name=outcome.handed.receiver_name,
        ),
        "success",
    )
    return redirect(url_for("documents.detail", reference=reference), 303)
