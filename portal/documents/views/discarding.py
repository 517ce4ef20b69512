"""Throwing a draft away: a page that says what will happen and asks, then the post
that does it (no script: the confirmation is a page of its own)."""

from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import login_required

from portal.documents.queries.detail import document_for_discarding
from portal.documents.services import discard_draft
from portal.documents.views import bp
from portal.domain.errors import DomainError
from portal.web.request_input import current_request_id
from portal.web.tenancy import current_actor


@bp.get("/<reference>/discard")
@login_required
def confirm_discard(reference: str) -> ResponseReturnValue:
    """What discarding means for this draft, and the button that does it. Anyone but
    its requester, or a draft that was ever submitted, is refused here already."""
    document = document_for_discarding(current_actor(), reference)
    return render_template("documents/discard.html", document=document)


@bp.post("/<reference>/discard")
@login_required
def discard(reference: str) -> ResponseReturnValue:
    """Discard, then back to the list it has left. A second post (a double click, a
    second tab) finds it gone and says so; every other refusal is the error page."""
    try:
        done = discard_draft(current_actor(), reference, request_id=current_request_id())
    except DomainError as error:
        if error.code != "document_discarded":
            raise
        flash(_("%(reference)s had already been discarded.", reference=reference[:32]), "info")
    else:
        flash(
            _(
                "%(reference)s “%(title)s” is discarded: it is no longer listed anywhere.",
                reference=done.reference,
                title=done.title,
            ),
            "success",
        )
    return redirect(url_for("documents.index"), 303)
