"""Messages every page may show: generic refusals and the request layer's."""

from __future__ import annotations

from portal.domain.messages.markers import N_

GENERAL: dict[str, str | tuple[str, str]] = {
    # generic
    "not_found": N_("Not found."),
    "forbidden": N_("You are not allowed to do that."),
    "admin_required": N_("Only an organization admin can do that."),
    "tenant_not_set": N_("No organization was selected for this request."),
    "cross_tenant_write": N_("That belongs to another organization."),
    "csrf_failed": N_(
        "Your form expired or came from another site. Reload the page and try again."
    ),
    "session_expired": N_("Your session has ended. Please sign in again."),
    "bad_request": N_("The request could not be understood."),
    # the request layer: what any field, query or body is refused for
    # i18n: %(name)s is the name of the form field as the page sends it, e.g. "title".
    "control_character": N_(
        "“%(name)s” contains a control character (such as a NUL byte or, in a one-line "
        "field, a line break or tab). Remove it and try again."
    ),
    "value_too_long": N_("“%(name)s” is longer than %(limit)s characters."),
    "not_a_whole_number": N_("“%(name)s” must be a whole number written with the digits 0–9."),
    "number_out_of_range": N_("“%(name)s” must be between %(min)s and %(max)s."),
    "body_too_large": N_("The request is larger than %(limit)s bytes."),
    "json_invalid": N_("The request is not valid JSON (line %(line)s, column %(column)s)."),
    "json_too_deep": N_("The request nests too deeply."),
    "json_duplicate_key": N_("The JSON names “%(key)s” twice in one object."),
    # the outbox (Operations page, `portal outbox retry`)
    "outbox_already_delivered": N_(
        "Event %(id)s was delivered already: there is nothing to retry."
    ),
    "outbox_not_dead": N_(
        "Event %(id)s is still being tried: it can be retried once its attempts have run out."
    ),
    "verification_unavailable": N_(
        "The check could not be queued just now (the job queue is not answering). Nothing was asked for; try again in a minute."
    ),
}
