"""Notices and how members choose to hear of them."""

from __future__ import annotations

from portal.domain.messages.markers import N_

NOTIFICATIONS: dict[str, str | tuple[str, str]] = {
    # What a notice says when its document can no longer be read (the stored keys only).
    "notice_due_soon": N_("%(reference)s is due soon and waiting for your decision."),
    "notice_overdue": N_("%(reference)s is overdue and waiting for your decision."),
    "notice_escalated": N_("%(reference)s was escalated to you."),
    "notice_escalated_away": N_("%(reference)s was escalated above you."),
    "notice_reassigned": N_("%(reference)s was reassigned."),
    "notice_escalation_gap": N_("%(reference)s could not be escalated: nobody is above."),
    "notice_auto_refused": N_("An automatic step on %(reference)s was refused."),
    "notice_task_handed_over": N_("%(reference)s was handed over."),
    # What a cover notice says when its cover can no longer be read.
    "notice_cover_set": N_("Cover was set for you."),
    "notice_cover_started": N_("A cover of yours has begun."),
    "notice_cover_ended": N_("A cover of yours ended."),
    "notice_cover_revoked": N_("A cover of yours was revoked."),
    "notice_cover_summary": N_("A cover for you ended."),
    # why an escalation found nobody: the flow's bound on escalation levels was reached
    "gap_escalation_bound": N_("It has been escalated as far as the flow allows."),
    # the notification preferences form
    # i18n: %(name)s is the form field's technical name, e.g. "assigned.email".
    "unknown_notice_setting": N_("“%(name)s” is not a notification setting."),
    "notice_setting_repeated": N_("The setting “%(name)s” was sent more than once."),
    "bad_notice_setting": N_("The setting “%(name)s” can only be ticked or left empty."),
}
