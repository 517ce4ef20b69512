"""A state's deadline and lazy escalation in the reader's words, for the flow page:
"After 2 days: remind the approvers (again each 2 days, at most 3 times)".

The sentences follow the sweep's rules (``domain.deadlines``): a ``remind`` deadline
reminds at most ``MAX_REMINDERS`` times, an escalation climbs at most
``escalation_bound`` seats, and ``Nd`` is N × 24 hours.
"""

from __future__ import annotations

from flask_babel import get_locale, ngettext
from flask_babel import gettext as _

from portal.domain.deadlines import MAX_REMINDERS, escalation_bound
from portal.domain.durations import duration_minutes
from portal.domain.graph import BreachAction, Graph, State


def duration_words(text: str) -> str:
    """ "48h" -> "48 hours", "1d" -> "1 day"; a duration the flow cannot have is shown
    as written (the validator has already said what is wrong with it)."""
    if duration_minutes(text) is None:
        return text
    number, unit = int(text[:-1]), text[-1]
    if unit == "d":
        return ngettext("%(num)s day", "%(num)s days", number)
    if unit == "h":
        return ngettext("%(num)s hour", "%(num)s hours", number)
    return ngettext("%(num)s minute", "%(num)s minutes", number)


def deadline_words(graph: Graph, state: State, locale: str | None = None) -> list[str]:
    """What happens to a task left waiting in ``state``, one sentence per rule (none
    when the state has neither a deadline nor an escalation delay); action names in
    ``locale``, the reader's by default."""
    locale = locale or str(get_locale())
    lines = []
    if state.deadline is not None:
        lines.append(_breach_words(graph, state, locale))
    if state.escalate_after:
        lines.append(
            _(
                "If untouched for %(after)s: bring in the next manager up",
                after=duration_words(state.escalate_after),
            )
        )
    return lines


def _breach_words(graph: Graph, state: State, locale: str) -> str:
    deadline = state.deadline
    assert deadline is not None
    after = duration_words(deadline.after)
    action = deadline.on_breach
    if action == BreachAction.REMIND:
        return ngettext(
            "After %(after)s: remind the approvers (again each %(after)s, at most %(num)s time)",
            "After %(after)s: remind the approvers (again each %(after)s, at most %(num)s times)",
            MAX_REMINDERS,
            after=after,
        )
    if action == BreachAction.ESCALATE_UP:
        bound = escalation_bound(graph, state.key)
        if bound <= 0:
            return _(
                "After %(after)s: tell the admins (the grants allow no escalation)", after=after
            )
        return ngettext(
            "After %(after)s: bring in the next manager up (at most %(num)s level)",
            "After %(after)s: bring in the next manager up (at most %(num)s levels)",
            bound,
            after=after,
        )
    if action == BreachAction.REASSIGN:
        return _("After %(after)s: reassign to the approver's manager", after=after)
    if action == BreachAction.AUTO:
        if not deadline.transition:
            return _("After %(after)s: act automatically (no action chosen yet)", after=after)
        # i18n: %(action)s is the name of a flow's action, such as "Approve".
        return _(
            "After %(after)s: %(action)s automatically",
            after=after,
            action=graph.transition_label(state.key, deadline.transition, locale),
        )
    return _("After %(after)s: %(action)s", after=after, action=action)
