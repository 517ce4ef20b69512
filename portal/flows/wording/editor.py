"""Every word the flow editor's script shows, translated on the server.

The script holds no text of its own: the page hands it these, in the admin's language,
with ``%(name)s`` placeholders it fills in, and the vocabulary of its pickers.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import force_locale
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString

from portal.domain.deadlines import MAX_REMINDERS
from portal.domain.locales import SUPPORTED_LOCALES
from portal.flows.wording.actions import action_suggestions
from portal.flows.wording.vocabulary import (
    BREACH_ACTIONS,
    FIELD_TYPES,
    GATES,
    GRANTEE_KINDS,
    ON_VACANCY,
    STATE_ROLES,
)

EDITOR_TEXT = {
    "loading": _l("Loading the draft…"),
    "saving": _l("Saving…"),
    "saved": _l("Saved as draft revision %(revision)s."),
    "saved_by": _l("Draft revision %(revision)s, last saved by %(who)s on %(when)s."),
    "unsaved": _l("Not opened for editing yet: your first change saves revision 1."),
    "retrying": _l("Not saved — retrying. Your changes are kept on this page."),
    "conflict": _l(
        "Another admin saved this draft (now revision %(revision)s) after you opened it. "
        "Your last change was not saved."
    ),
    "reload": _l("Reload the draft"),
    "refused": _l("Not saved: %(message)s"),
    "failed": _l("That did not work: %(message)s"),
    "add_state": _l("Add state"),
    "auto_layout": _l("Auto-layout"),
    "fit": _l("Fit to screen"),
    "zoom_in": _l("Zoom in"),
    "zoom_out": _l("Zoom out"),
    "delete": _l("Delete"),
    "delete_initial": _l("The draft state is where every document starts: a flow needs it."),
    "new_state": _l("New state"),
    "duplicate": _l("Duplicate this state"),
    "publish": _l("Publish"),
    "publish_blocked": _l("Publishing waits until every error is fixed (%(num)s left)."),
    "publish_unsaved": _l("Change something first: there is no draft to publish."),
    "publish_ready": _l("No errors: ready to publish."),
    "publish_title": _l("Publish version %(version)s?"),
    "publish_nothing": _l("Nothing changes against the current version."),
    "published": _l("Published version %(version)s. New documents start on it."),
    "cancel": _l("Cancel"),
    "discard": _l("Discard draft"),
    "discard_confirm": _l("Discard the draft and go back to the current version?"),
    "discarded": _l("The draft was discarded."),
    "states": _l("States"),
    "transitions": _l("Transitions"),
    "grants": _l("Grants"),
    "fields": _l("Fields"),
    "added": _l("added"),
    "removed": _l("removed"),
    "changed": _l("changed"),
    "problems": _l("Problems"),
    "no_problems": _l("No problems."),
    "error": _l("error"),
    "warning": _l("warning"),
    "outline": _l("States and transitions"),
    "nothing_selected": _l("Select a state or a transition to edit it."),
    "state": _l("State"),
    "transition": _l("Transition"),
    "key": _l("Key"),
    "label_in": _l("Label (%(locale)s)"),
    "role": _l("Kind of step"),
    "terminal": _l("Ends the flow"),
    "deadline": _l("Deadline (such as 5d or 48h)"),
    "on_breach": _l("When the deadline passes"),
    "escalate_after": _l("Escalate after (such as 2d)"),
    # i18n: help under the deadline field; "×" is a multiplication sign.
    "deadline_help": _l(
        "5d = 5 × 24 hours from when the task opens; 30m, 48h, 3d. Business days are not counted."
    ),
    "escalate_after_help": _l(
        "If the task stands untouched this long, the next filled seat above its holder "
        "is brought in as well. Counted like the deadline: 30m, 48h, 3d."
    ),
    "breach_help_remind": _l(
        "The approvers are reminded when the deadline passes, then again each period, "
        "at most %(num)s times in all."
    ),
    "breach_help_escalate_up": _l(
        "The next filled seat above the approvers gets the task too; the approvers keep "
        "theirs. It climbs at most as many levels as the grants allow."
    ),
    "breach_help_reassign": _l(
        "The task moves to the approver's manager (the filled seat above); the approver "
        "no longer holds it."
    ),
    "breach_help_auto": _l(
        "The system takes the chosen action by itself, recorded in the history as the "
        "system's. It never moves money."
    ),
    "auto_transition": _l("Action the system takes"),
    "who_decides": _l("Who may decide here"),
    "add_grant": _l("Add a grant"),
    "remove": _l("Remove"),
    "grantee": _l("Who"),
    "member": _l("Member"),
    "position": _l("Seat"),
    "levels": _l("Levels up"),
    "role_name": _l("Role"),
    "floor": _l("From amount (%(currency)s)"),
    "on_vacancy": _l("If nobody holds the seat"),
    "max_levels": _l("Escalate at most (levels)"),
    "gate": _l("Who may take it"),
    "guard": _l("Condition (such as document.amount > 0)"),
    "guard_message": _l("Said when the condition fails (%(locale)s)"),
    "comment_required": _l("Needs a comment"),
    "reverses": _l("Reverses the booking"),
    "from_to": _l("%(from)s → %(to)s"),
    "outline_shown": _l("%(shown)s of %(all)s states shown."),
    "order_hint": _l("The order of the actions on a document's page"),
    "order_place": _l("Action %(n)s of %(of)s on a document's page."),
    "offer_earlier": _l("Offer earlier"),
    "offer_later": _l("Offer later"),
    "source": _l("From state"),
    "target": _l("To state"),
    "leave_unsaved": _l("Changes are not saved yet. Leave anyway?"),
    "initial": _l("Initial (draft)"),
    "pending": _l("Waiting for a decision"),
    "money": _l("Moves money"),
    "ends": _l("Ends the flow"),
    "legend": _l("Legend"),
    "export": _l("Export JSON"),
    "import": _l("Import JSON"),
    "imported": _l("Imported as draft revision %(revision)s."),
    "import_refused": _l("%(name)s was not imported, and nothing changed: %(message)s"),
    "export_version": _l("Export version %(version)s as JSON"),
    "offline": _l("The server could not be reached; nothing changed. Try again."),
    "unexpected": _l(
        "The server's answer was not understood (perhaps you were signed out). "
        "Nothing changed: reload the page."
    ),
    "wait_for_save": _l("The last change is still being saved; try again in a moment."),
    "key_taken": _l("Another state already has the key %(key)s: the key was kept."),
    "versions": _l("Versions"),
    "view": _l("View"),
    "start_from": _l("Start a draft from this version"),
    "viewing": _l("Version %(version)s, read-only."),
    "back": _l("Back to the draft"),
    "published_by": _l("%(when)s by %(who)s"),
    "choose": _l("Choose…"),
    "flow": _l("The flow"),
    "field_type": _l("Type"),
    "required": _l("Required"),
    "choices": _l("Choices (keys, separated by commas)"),
    "add_field": _l("Add a field"),
    "preview": _l("Who would approve?"),
    "requester": _l("Requester"),
    "amount": _l("Amount (%(currency)s)"),
    "show": _l("Show"),
    "step_deciders": _l("%(state)s: %(names)s"),
    "step_blocked": _l("%(state)s: nobody can decide — %(reason)s"),
    "none": _l("none"),
    # amount bands
    "floor_not_number": _l("Write the amount in digits, such as %(example)s."),
    "floor_ambiguous": _l("That could be read as two amounts: type it as %(example)s."),
    "floor_too_precise": _l("%(currency)s amounts have at most %(places)s decimals."),
    "floor_too_large": _l("That amount is too large for a floor."),
    "ladder": _l("Who decides, by amount"),
    "ladder_band": _l("from %(amount)s: %(who)s"),
    "ladder_gap": _l("Nobody decides amounts below %(amount)s: add a grant from 0."),
    "ladder_empty": _l("Nobody decides here yet."),
    "grantee_unchosen": _l("(who is not chosen yet)"),
    "value_refused": _l("Publishing waits until the value marked in the panel is fixed."),
    "refused_marked": _l("Not saved: the value marked in the panel needs fixing."),
    # a new arrow
    "action_key_invalid": _l(
        "A short name is lower-case letters, digits and underscores, starting with a letter."
    ),
    "action_key_taken": _l("%(key)s already leaves this state: choose another name."),
    # the problems list and the toolbar
    "problem_count": _l("Problems: %(num)s"),
    "problem_where": _l("Where: %(path)s · %(code)s"),
    "discard_nothing": _l("There is no draft to discard."),
    "delete_nothing": _l("Select a state or an arrow to delete it."),
    "labels_changed": _l("Labels changed"),
    "settings": _l("Settings"),
    "exclusive_approval": _l("A member decides at most one step of a document"),
    "exclusive_approval_hint": _l(
        "Whoever approved one step of a document cannot approve another step of it."
    ),
}


def _in(locale: str, text: LazyString) -> str:
    """A lazy string rendered in ``locale`` rather than the reader's."""
    with force_locale(locale):
        return str(text)


def _pairs(mapping: Mapping[str, LazyString]) -> list[list[str]]:
    return [[key, str(text)] for key, text in mapping.items()]


def editor_words() -> dict[str, object]:
    """The editor script's words and vocabulary, in the admin's language."""
    return {
        "locales": list(SUPPORTED_LOCALES),
        "roles": _pairs(STATE_ROLES),
        "gates": _pairs(GATES),
        "breach": _pairs(BREACH_ACTIONS),
        "vacancy": _pairs(ON_VACANCY),
        "grantees": _pairs(GRANTEE_KINDS),
        "field_types": _pairs(FIELD_TYPES),
        "text": {
            **{key: str(text) for key, text in EDITOR_TEXT.items()},
            "breach_help_remind": str(EDITOR_TEXT["breach_help_remind"]) % {"num": MAX_REMINDERS},
        },
        "actions": action_suggestions(),
        # A new state's name in every language, not only the admin's.
        "new_state": {
            locale: _in(locale, EDITOR_TEXT["new_state"]) for locale in SUPPORTED_LOCALES
        },
    }
