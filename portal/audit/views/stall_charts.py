"""The four stall charts, laid out (``domain.charts``) with the reader's words: each with
a one-sentence summary (the SVG's title: what a glance would tell) and a legend."""

from __future__ import annotations

from dataclasses import dataclass

from babel.dates import format_skeleton
from flask_babel import gettext as _
from flask_babel import ngettext

from portal.audit.queries.stalls import StallReport
from portal.audit.views.stall_tables import Words
from portal.domain.charts import (
    BarRow,
    Chart,
    ColumnGroup,
    bar_chart,
    column_chart,
    duration_ticks,
    nice_ticks,
)

# The approvers drawn; the table lists every one.
MAX_APPROVER_BARS = 20


@dataclass(frozen=True)
class ChartView:
    key: str
    heading: str
    # What the chart says, in one sentence (the SVG's title).
    summary: str
    chart: Chart
    # (css class of the swatch, words)
    legend: tuple[tuple[str, str], ...] = ()
    note: str = ""


def states_chart(report: StallReport, words: Words) -> ChartView:
    heading = _("Time in each state")
    legend = (("median", _("Median")), ("p90", _("90th percentile")))
    if not report.states:
        return ChartView(
            "states", heading, _("No visit to a state ended in this period."), Chart(0, 0), legend
        )
    rows = [
        BarRow(
            report.state_label(s.state, words.locale),
            (s.p90_seconds, s.median_seconds),
            # i18n: after a bar: the median, then the 90th percentile, e.g. "3 d 4 h · 90%: 5 d".
            _(
                "%(median)s · 90%%: %(p90)s",
                median=words.duration(s.median_seconds),
                p90=words.duration(s.p90_seconds),
            ),
            (words.duration(s.p90_seconds), words.duration(s.median_seconds)),
        )
        for s in report.states
    ]
    slowest = max(report.states, key=lambda s: s.median_seconds)
    chart = bar_chart(
        rows,
        series=("p90", "median"),
        ticks=duration_ticks(max(s.p90_seconds for s in report.states)),
        tick_label=words.duration_tick,
    )
    summary = _(
        "The longest median is in %(state)s: %(median)s (90th percentile %(p90)s).",
        state=report.state_label(slowest.state, words.locale),
        median=words.duration(slowest.median_seconds),
        p90=words.duration(slowest.p90_seconds),
    )
    return ChartView("states", heading, summary, chart, legend)


def waiting_chart(report: StallReport, words: Words) -> ChartView:
    heading = _("Waiting now")
    legend = (("waiting", _("Waiting")), ("overdue", _("Overdue")))
    if not report.waiting:
        return ChartView("waiting", heading, _("No document is waiting now."), Chart(0, 0), legend)
    rows = [
        BarRow(
            report.state_label(w.state, words.locale),
            (float(w.waiting), float(w.overdue)),
            # i18n: after a bar: documents waiting in a state, and how many are overdue.
            _(
                "%(waiting)s (%(overdue)s overdue)",
                waiting=words.count(w.waiting),
                overdue=words.count(w.overdue),
            ),
            (words.count(w.waiting), words.count(w.overdue)),
        )
        for w in report.waiting
    ]
    waiting = sum(w.waiting for w in report.waiting)
    overdue = sum(w.overdue for w in report.waiting)
    most = max(report.waiting, key=lambda w: w.waiting)
    chart = bar_chart(
        rows,
        series=("waiting", "overdue"),
        ticks=nice_ticks(max(w.waiting for w in report.waiting)),
        tick_label=words.count,
    )
    summary = ngettext(
        "%(num)s document is waiting now, %(overdue)s of them overdue; the most in %(state)s (%(most)s).",
        "%(num)s documents are waiting now, %(overdue)s of them overdue; the most in %(state)s (%(most)s).",
        waiting,
        overdue=words.count(overdue),
        state=report.state_label(most.state, words.locale),
        most=words.count(most.waiting),
    )
    return ChartView("waiting", heading, summary, chart, legend)


def approvers_chart(report: StallReport, words: Words) -> ChartView:
    heading = _("Approvals per approver")
    legend = (("approvals", _("Approvals")),)
    if not report.approvers:
        return ChartView(
            "approvers", heading, _("Nobody approved anything in this period."), Chart(0, 0), legend
        )
    drawn = report.approvers[:MAX_APPROVER_BARS]
    rows = [
        BarRow(
            report.names.get(a.member_id, f"#{a.member_id}"),
            (float(a.approvals),),
            words.count(a.approvals),
            (words.count(a.approvals),),
        )
        for a in drawn
    ]
    chart = bar_chart(
        rows,
        series=("approvals",),
        ticks=nice_ticks(drawn[0].approvals),
        tick_label=words.count,
    )
    total = sum(a.approvals for a in report.approvers)
    summary = ngettext(
        "%(num)s approval in all; the most by %(name)s (%(most)s).",
        "%(num)s approvals in all; the most by %(name)s (%(most)s).",
        total,
        name=report.names.get(drawn[0].member_id, f"#{drawn[0].member_id}"),
        most=words.count(drawn[0].approvals),
    )
    note = ""
    if len(report.approvers) > MAX_APPROVER_BARS:
        note = _(
            "The %(num)s approvers with the most approvals are drawn; the table lists all %(all)s.",
            num=MAX_APPROVER_BARS,
            all=len(report.approvers),
        )
    return ChartView("approvers", heading, summary, chart, legend, note)


def weekly_chart(report: StallReport, words: Words) -> ChartView:
    heading = _("Per week")
    legend = (("submitted", _("Submitted")), ("finished", _("Finished")))
    groups = [
        ColumnGroup(
            format_skeleton("MMMd", w.monday, locale=words.format_locale),
            (float(w.submitted), float(w.finished)),
            (words.count(w.submitted), words.count(w.finished)),
        )
        for w in report.weeks
    ]
    submitted = sum(w.submitted for w in report.weeks)
    finished = sum(w.finished for w in report.weeks)
    top = max((max(w.submitted, w.finished) for w in report.weeks), default=0)
    chart = column_chart(
        groups,
        series=("submitted", "finished"),
        ticks=nice_ticks(top),
        tick_label=words.count,
    )
    summary = ngettext(
        "Over %(num)s week: %(submitted)s submitted, %(finished)s finished.",
        "Over %(num)s weeks: %(submitted)s submitted, %(finished)s finished.",
        len(report.weeks),
        submitted=words.count(submitted),
        finished=words.count(finished),
    )
    note = _(
        "Weeks run Monday to Sunday in the organization's time zone (%(zone)s); the first and last may be partial.",
        zone=report.zone,
    )
    return ChartView("weekly", heading, summary, chart, legend, note)


def charts_of(report: StallReport, words: Words) -> list[ChartView]:
    return [
        states_chart(report, words),
        waiting_chart(report, words),
        approvers_chart(report, words),
        weekly_chart(report, words),
    ]
