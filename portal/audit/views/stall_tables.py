"""The table behind each stall chart, in the reader's language: what a screen reader
reads, and — cell for cell — what the chart's CSV holds. A CSV adds, beside a figure
written for people ("3 d 4 h"), its exact value ("273600", in seconds), under a column
key that does not change with the language."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from babel.dates import format_interval
from babel.numbers import format_decimal
from flask_babel import gettext as _
from flask_babel import pgettext

from portal.audit.queries.stalls import StallReport
from portal.domain.charts import human_duration


@dataclass(frozen=True)
class Cell:
    text: str
    # The exact value, for a column that has one in the CSV.
    value: str | None = None


@dataclass(frozen=True)
class Column:
    # The CSV's heading (stable, English).
    key: str
    heading: str
    numeric: bool = False
    # The CSV's heading for the exact value beside the words, if the column has one.
    exact_key: str | None = None


@dataclass(frozen=True)
class Table:
    chart: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def csv_header(self) -> list[str]:
        out = []
        for column in self.columns:
            out.append(column.key)
            if column.exact_key:
                out.append(column.exact_key)
        return out

    def csv_rows(self) -> list[list[str]]:
        out = []
        for row in self.rows:
            line = []
            for column, cell in zip(self.columns, row, strict=True):
                line.append(cell.text)
                if column.exact_key:
                    line.append(cell.value or "")
            out.append(line)
        return out


@dataclass(frozen=True)
class Words:
    """How the reader writes figures: their language, formatting locale and units."""

    locale: str
    format_locale: str

    def count(self, number: float) -> str:
        return format_decimal(number, locale=self.format_locale)

    def duration(self, seconds: float) -> str:
        return human_duration(seconds, duration_units())

    def duration_tick(self, seconds: float) -> str:
        """An axis's duration: its zero is just "0"."""
        return self.count(0) if seconds == 0 else self.duration(seconds)

    def week(self, monday: date, sunday: date) -> str:
        return format_interval(monday, sunday, "yMMMd", locale=self.format_locale)


def duration_units() -> dict[str, str]:
    # i18n: abbreviations in a duration such as "3 d 4 h" (days, hours, minutes, seconds).
    return {
        "d": pgettext("duration unit", "d"),
        "h": pgettext("duration unit", "h"),
        "min": pgettext("duration unit", "min"),
        "s": pgettext("duration unit", "s"),
    }


def _seconds(seconds: float) -> str:
    return str(round(seconds))


def states_table(report: StallReport, words: Words) -> Table:
    columns = (
        Column("state", _("State"), exact_key="state_key"),
        Column("finished_visits", _("Finished visits"), numeric=True),
        Column("median", _("Median"), numeric=True, exact_key="median_seconds"),
        Column("p90", _("90th percentile"), numeric=True, exact_key="p90_seconds"),
        Column("longest", _("Longest"), numeric=True, exact_key="longest_seconds"),
    )
    rows = tuple(
        (
            Cell(report.state_label(s.state, words.locale), s.state),
            Cell(words.count(s.visits)),
            Cell(words.duration(s.median_seconds), _seconds(s.median_seconds)),
            Cell(words.duration(s.p90_seconds), _seconds(s.p90_seconds)),
            Cell(words.duration(s.longest_seconds), _seconds(s.longest_seconds)),
        )
        for s in report.states
    )
    return Table("states", _("Time in each state (finished visits)"), columns, rows)


def waiting_table(report: StallReport, words: Words) -> Table:
    columns = (
        Column("state", _("State"), exact_key="state_key"),
        Column("waiting", _("Waiting now"), numeric=True),
        Column("overdue", _("Overdue"), numeric=True),
        Column(
            "longest_wait", _("Longest wait so far"), numeric=True, exact_key="longest_wait_seconds"
        ),
    )
    rows = []
    for w in report.waiting:
        waited = max(0.0, (report.now - w.oldest_entered_at).total_seconds())
        rows.append(
            (
                Cell(report.state_label(w.state, words.locale), w.state),
                Cell(words.count(w.waiting)),
                Cell(words.count(w.overdue)),
                Cell(words.duration(waited), _seconds(waited)),
            )
        )
    return Table("waiting", _("Documents waiting in each state now"), columns, tuple(rows))


def approvers_table(report: StallReport, words: Words) -> Table:
    columns = (
        Column("approver", _("Approver"), exact_key="member_id"),
        Column("approvals", _("Approvals"), numeric=True),
        Column("under_cover", _("Under cover"), numeric=True),
        Column("actions", _("By action")),
    )
    rows = []
    for a in report.approvers:
        actions = "; ".join(
            # i18n: an action and how many times it was taken, e.g. "Approve: 3".
            _(
                "%(action)s: %(num)s",
                action=report.action_label(f, t, words.locale),
                num=words.count(n),
            )
            for (f, t), n in a.by_action
        )
        rows.append(
            (
                Cell(report.names.get(a.member_id, f"#{a.member_id}"), str(a.member_id)),
                Cell(words.count(a.approvals)),
                Cell(words.count(a.under_cover)),
                Cell(actions),
            )
        )
    return Table("approvers", _("Approvals per approver"), columns, tuple(rows))


def weekly_table(report: StallReport, words: Words) -> Table:
    columns = (
        Column("week", _("Week"), exact_key="monday"),
        Column("days", _("Days")),
        Column("submitted", _("Submitted"), numeric=True),
        Column("finished", _("Finished"), numeric=True),
    )
    rows = []
    for w in report.weeks:
        year, week = w.iso_week
        rows.append(
            (
                Cell(f"{year}-W{week:02d}", w.monday.isoformat()),
                Cell(words.week(w.monday, w.sunday)),
                Cell(words.count(w.submitted)),
                Cell(words.count(w.finished)),
            )
        )
    return Table("weekly", _("Documents submitted and finished per week"), columns, tuple(rows))


TABLES: dict[str, Callable[[StallReport, Words], Table]] = {
    "states": states_table,
    "waiting": waiting_table,
    "approvers": approvers_table,
    "weekly": weekly_table,
}
