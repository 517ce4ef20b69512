"""The document page's history in words: each edit's changes with their labels, and
their values ready for the page's filters (amounts as Decimals for ``money``, choices by
their label); what a passing deadline did (escalated, reassigned, found nobody, moved
the document as the system) and the reminders it sent. No routes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from babel.dates import format_interval
from flask_babel import gettext as _

from portal.documents.queries.detail import HistoryEntry
from portal.documents.queries.handovers import DEADLINE_GATE, Handover
from portal.documents.queries.history import Change, EditEntry, ReminderEntry
from portal.domain.authority import Via
from portal.domain.deadlines import EffectKind
from portal.domain.graph import BreachAction, DocumentField, FieldType, Graph
from portal.domain.handover import HANDOVER_GATE
from portal.web.i18n import format_locale, format_moment, format_money, reader_time_zone
from portal.web.messages import gap_message


@dataclass(frozen=True)
class ChangeLine:
    label: str
    # How the values are shown: money, date, bool, long (folded), text.
    kind: str
    old: object
    new: object


def timeline_rows(
    timeline: Sequence[HistoryEntry | EditEntry | ReminderEntry], graph: Graph, locale: str
) -> list[tuple[HistoryEntry | EditEntry | ReminderEntry, list[ChangeLine] | list[str]]]:
    """Each entry with the lines it shows: one per change for an edit; for a decision
    or a reminder, the sentences that say what a deadline did (none for a member's
    decision)."""
    fields = {f.key: f for f in graph.fields}
    rows: list[tuple[HistoryEntry | EditEntry | ReminderEntry, list[ChangeLine] | list[str]]]
    rows = []
    for entry in timeline:
        if isinstance(entry, EditEntry):
            rows.append((entry, [_line(c, fields, locale) for c in entry.changes]))
        elif isinstance(entry, ReminderEntry):
            rows.append((entry, [reminder_words(entry)]))
        else:
            rows.append((entry, decision_notes(entry, graph, locale)))
    return rows


@dataclass(frozen=True)
class DecisionWords:
    """A decision's line on the document page as the reader reads it."""

    action: str
    from_state: str
    to_state: str
    # A medium date and a short time in the reader's zone.
    when: str
    # The amount it was taken on.
    amount: str


def decision_words(
    history: Sequence[HistoryEntry], graph: Graph, locale: str
) -> dict[int, DecisionWords]:
    """Each decision's words by its seq: its action and states as ``graph`` labels them
    in ``locale`` (the bare keys where the pinned flow lacks them), its moment and its
    amount in the reader's formats. The labels are looked up once for the page, the
    reader's formats settled once, rather than for every row."""
    states: dict[str, str] = {}
    for s in graph.states:
        states.setdefault(s.key, s.labels.text(locale))
    actions: dict[tuple[str, str], str] = {}
    for t in graph.transitions:
        actions.setdefault((t.from_state, t.key), t.labels.text(locale))
    formats, zone = format_locale(), reader_time_zone()
    return {
        h.seq: DecisionWords(
            action=actions.get((h.from_state, h.transition), h.transition),
            from_state=states.get(h.from_state, h.from_state),
            to_state=states.get(h.to_state, h.to_state),
            when=_moment(h.decided_at, formats, zone),
            amount=format_money(h.amount, h.currency, formats),
        )
        for h in history
    }


@lru_cache(maxsize=8192)
def _moment(value: datetime, formats: str, zone: str) -> str:
    # A decision's moment never changes, and its page is read again and again (by each
    # approver, after each decision): its words are kept by value, as amounts' are
    # (``web.i18n.format_money``), rather than put through Babel's patterns every time.
    return format_moment(value, formats, zone)


def cover_days(history: Sequence[HistoryEntry]) -> dict[int, str]:
    """The days of the cover each decision taken under one relied on, by the decision's
    seq, as the reader's locale writes a span ("8–19 Dec")."""
    formats = format_locale()
    return {
        h.seq: format_interval(h.cover.valid_from, h.cover.valid_to, "MMMd", locale=formats)
        for h in history
        if h.cover is not None
    }


def reminder_words(entry: ReminderEntry) -> str:
    if entry.kind == EffectKind.DUE_SOON:
        return _("Reminder sent to %(name)s (due soon)", name=entry.member_name)
    return _("Reminder sent to %(name)s (overdue)", name=entry.member_name)


def decision_notes(entry: HistoryEntry, graph: Graph, locale: str) -> list[str]:
    """What a deadline did, in sentences: a deadline decision's handovers, or the move
    the system made when the deadline passed; who handed their task to whom, and why.
    Nothing for a member's decision."""
    if entry.gate == DEADLINE_GATE:
        return [handover_words(h) for h in entry.handovers]
    if entry.gate == HANDOVER_GATE:
        # The row names its receiver as the one eligible member.
        receiver = entry.eligible_names[0] if entry.eligible_names else "—"
        return [
            _(
                "%(holder)s handed the task to %(receiver)s: %(reason)s",
                holder=entry.actor_name or "—",
                receiver=receiver,
                reason=entry.comment,
            )
        ]
    if entry.actor_id is None and entry.via == Via.SYSTEM:
        return [
            _(
                "%(state)s automatically when the deadline passed",
                state=graph.state_label(entry.to_state, locale),
            )
        ]
    return []


def handover_words(h: Handover) -> str:
    """ "Escalated to Zainal Abidin after the deadline passed", "Reassigned from Nurul
    Huda to Zainal Abidin", or why nobody was found above."""
    if h.gap is not None or not h.to_names:
        reason = str(h.gap.get("reason", "")) if h.gap is not None else ""
        if reason == "vacant" and "position" in h.gap_names:
            return _(
                "Nobody above %(name)s to escalate to: the seat of %(position)s is vacant.",
                name=h.from_name,
                position=h.gap_names["position"],
            )
        if reason:
            return _(
                "Nobody above %(name)s to escalate to. %(reason)s",
                name=h.from_name,
                reason=gap_message(reason, h.gap_names),
            )
        return _("Nobody above %(name)s to escalate to.", name=h.from_name)
    names = _(", ").join(h.to_names)
    if h.action == BreachAction.REASSIGN:
        return _("Reassigned from %(holder)s to %(names)s", holder=h.from_name, names=names)
    if h.reason == EffectKind.ESCALATE_AFTER:
        return _("Escalated to %(names)s: nobody had acted on it in time", names=names)
    return _("Escalated to %(names)s after the deadline passed", names=names)


def _line(change: Change, fields: dict[str, DocumentField], locale: str) -> ChangeLine:
    if change.field == "amount":
        return ChangeLine(_("Amount"), "money", _money(change.old), _money(change.new))
    if change.field == "title":
        return ChangeLine(_("Title"), "text", change.old, change.new)
    if change.field == "description":
        return ChangeLine(_("Description"), "long", change.old, change.new)
    key = change.field.removeprefix("fields.")
    spec = fields.get(key)
    if spec is None:  # a field the pinned flow does not declare: said as recorded
        return ChangeLine(key, "text", change.old, change.new)
    label = spec.labels.text(locale) or key
    if spec.type == FieldType.MONEY:
        return ChangeLine(label, "money", _money(change.old), _money(change.new))
    if spec.type == FieldType.CHOICE:
        names = {c.key: c.labels.text(locale) or c.key for c in spec.choices}
        return ChangeLine(label, "text", _choice(names, change.old), _choice(names, change.new))
    if spec.type == FieldType.BOOL:
        return ChangeLine(label, "bool", _flag(change.old), _flag(change.new))
    if spec.type == FieldType.DATE:
        return ChangeLine(label, "date", change.old, change.new)
    return ChangeLine(label, "text", change.old, change.new)


def _money(text: str | None) -> Decimal | str | None:
    """The recorded amount as a Decimal for the money filter; as recorded if it is not
    one (a hand-written row must not break the page)."""
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    return value if value.is_finite() else text


def _choice(names: dict[str, str], key: str | None) -> str | None:
    return None if key is None else names.get(key, key)


def _flag(text: str | None) -> bool | None:
    return None if text is None else text == "true"
