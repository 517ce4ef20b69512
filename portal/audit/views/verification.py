"""The verification of every chain on the audit pages: "Verify all now" (a pass queued
for a worker, recorded as the member's), the status the audit home page includes
(``templates/audit/_verification_status.html``), and that status on its own, which the
page polls while a pass asked for is waiting."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import format_time
from flask_babel import gettext as _

from portal.audit.services import verification as services
from portal.audit.views import audit_required, bp
from portal.core.clock import clock
from portal.domain.errors import Conflict
from portal.domain.time_zones import local_day
from portal.web.i18n import format_moment, reader_time_zone
from portal.web.messages import message_for
from portal.web.tenancy import current_actor


@bp.post("/verify")
@audit_required
def verify_all() -> ResponseReturnValue:
    actor = current_actor()
    try:
        asked = services.request_verification(actor)
    except Conflict as refusal:
        flash(message_for(refusal), "error")
        return redirect(url_for("audit.search", org=actor.org_slug))
    if asked:
        flash(
            _("A check of every chain was asked for: its result shows here once it has run."),
            "success",
        )
    else:
        flash(
            _(
                "A check of every chain is already waiting to run: its result shows here once it has run."
            ),
            "warning",
        )
    return redirect(url_for("audit.search", org=actor.org_slug))


@bp.get("/verification")
@audit_required
def verification_status() -> ResponseReturnValue:
    return render_template(
        "audit/_verification_status.html",
        verification=services.latest_verification(current_actor()),
    )


def verified_when(moment: datetime) -> str:
    """When a pass finished, in the reader's zone: the time alone today, the date and
    time any other day."""
    zone_name = reader_time_zone()
    if local_day(moment, zone_name) == clock.today_in(zone_name):
        return format_time(moment, "short")
    return format_moment(moment)


def verification_pending() -> bool:
    """Whether a pass asked for from the page is still waiting for a worker."""
    return services.verification_queued(current_actor())


@bp.context_processor
def _verification_helpers() -> dict[str, Any]:
    # For the status partial, whichever audit page includes it.
    return {
        "verified_when": verified_when,
        "verification_pending": verification_pending,
    }
