"""The stall page's pure parts, with no app: durations in words, nice ticks, labels that
never overlap, percentiles, the period a query asks for, and the weekly buckets in an
organization's own zone."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime

import pytest

from portal.domain.charts import (
    DAY,
    HOUR,
    BarRow,
    ColumnGroup,
    bar_chart,
    column_chart,
    duration_ticks,
    fit_text,
    human_duration,
    label_step,
    nice_ticks,
    text_width,
)
from portal.domain.errors import DomainError
from portal.domain.stalls import (
    MAX_PERIOD_DAYS,
    MoveGroup,
    Period,
    approvals,
    default_period,
    in_order,
    parse_period,
    parse_version,
    percentile,
    state_time,
    utc_bounds,
    weeks_of,
)


def test_durations_read_as_two_units_the_smaller_rounded():
    assert human_duration(3 * DAY + 4 * HOUR) == "3 d 4 h"
    assert human_duration(3 * DAY + 4 * HOUR + 40 * 60) == "3 d 5 h"
    assert human_duration(2 * DAY) == "2 d"
    assert human_duration(HOUR + 30 * 60) == "1 h 30 min"
    assert human_duration(45 * 60 + 20) == "45 min"
    assert human_duration(59 * 60 + 50) == "1 h"
    assert human_duration(DAY - 10) == "1 d"
    assert human_duration(20) == "20 s"
    assert human_duration(0) == "0 s"
    assert human_duration(3 * DAY, {"d": "天", "h": "小时"}) == "3 天"


def test_count_ticks_are_nice_and_reach_the_largest_value():
    assert nice_ticks(3) == [0, 1, 2, 3]
    assert nice_ticks(47) == [0, 10, 20, 30, 40, 50]
    assert nice_ticks(1234) == [0, 500, 1000, 1500]
    assert nice_ticks(0) == [0, 1]
    # Counts are whole: never a tick at 0.5.
    assert nice_ticks(2) == [0, 1, 2]


def test_duration_ticks_take_human_steps():
    assert duration_ticks(5 * DAY) == [0, DAY, 2 * DAY, 3 * DAY, 4 * DAY, 5 * DAY]
    assert duration_ticks(9 * HOUR) == [0, 2 * HOUR, 4 * HOUR, 6 * HOUR, 8 * HOUR, 10 * HOUR]
    assert duration_ticks(20 * DAY)[1] == 7 * DAY
    assert duration_ticks(0) == [0, HOUR]


def test_long_labels_are_cut_to_fit_and_wide_characters_count_double():
    assert fit_text("Pending review", 500) == "Pending review"
    cut = fit_text("A very long state name that will never fit", 100)
    assert cut.endswith("…") and text_width(cut) <= 100
    assert text_width("待审核") > text_width("abc")


def test_column_labels_are_thinned_until_none_overlaps():
    assert label_step([40.0] * 12, pitch=50) == 1
    assert label_step([40.0] * 12, pitch=30) == 2
    chart = column_chart(
        [ColumnGroup(f"{d} Nov", (float(d), 1.0)) for d in range(1, 53)],
        series=("submitted", "finished"),
        ticks=nice_ticks(52),
        tick_label=str,
    )
    below = sorted((t for t in chart.texts if t.anchor == "middle"), key=lambda t: t.x)
    assert 1 < len(below) < 52
    for left, right in itertools.pairwise(below):
        assert left.x + text_width(left.text) / 2 < right.x - text_width(right.text) / 2
    assert all(
        t.x - text_width(t.text) / 2 >= 0 and t.x + text_width(t.text) / 2 <= chart.width
        for t in below
    )


def test_bars_put_each_name_on_its_own_line_and_the_smaller_series_in_front():
    rows = [
        BarRow("Pending review", (10.0, 4.0), "4 · 10"),
        BarRow("Reviewed", (2.0, 1.0), "1 · 2"),
    ]
    chart = bar_chart(rows, series=("p90", "median"), ticks=nice_ticks(10), tick_label=str)
    p90, median = chart.rects[0], chart.rects[1]
    assert (p90.css, median.css) == ("bar p90", "bar median")
    assert median.width == pytest.approx(p90.width * 0.4)
    assert median.height < p90.height  # thinner, in front
    names = [t for t in chart.texts if t.css == "bar-label"]
    assert [n.text for n in names] == ["Pending review", "Reviewed"]
    # Names sit above their bars, never beside another text on the same line.
    assert names[0].y < p90.y < names[1].y
    # A bar reaching the edge has its words inside.
    value = next(t for t in chart.texts if t.text == "4 · 10")
    assert value.css == "bar-value inside on-p90" and value.anchor == "end"


def test_percentiles_interpolate_between_the_nearest_ranks():
    assert percentile([1.0, 2.0], 0.5) == 1.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 10.0], 0.9) == pytest.approx(7.6)
    assert percentile([5.0], 0.9) == 5.0
    assert percentile([], 0.5) == 0.0


def test_the_period_defaults_to_twelve_iso_weeks_and_refuses_what_is_not_a_period():
    today = date(2026, 12, 2)  # a Wednesday
    assert default_period(today) == Period(date(2026, 9, 14), today)
    assert parse_period("", "", today) == default_period(today)
    assert parse_period("2026-11-01", "2026-11-30", today) == Period(
        date(2026, 11, 1), date(2026, 11, 30)
    )
    for bad in ("2026-13-01", "٢٠٢٦-١١-٠١", "2026-11-1", "9" * 5000, "<b>2026</b>", "2026-02-30"):
        with pytest.raises(DomainError) as refused:
            parse_period(bad, "", today)
        assert (refused.value.code, refused.value.field) == ("invalid_date", "from")
        assert len(refused.value.params["value"]) <= 40
    with pytest.raises(DomainError) as reversed_:
        parse_period("2026-11-30", "2026-11-01", today)
    assert reversed_.value.code == "dates_out_of_order"
    with pytest.raises(DomainError) as too_long:
        parse_period("2000-01-01", "2026-11-01", today)
    assert (too_long.value.code, too_long.value.params) == (
        "stalls_period_too_long",
        {"days": MAX_PERIOD_DAYS},
    )


def test_a_version_is_digits_or_all():
    assert parse_version("") is None
    assert parse_version("all") is None
    assert parse_version("3") == 3
    for bad in ("0", "٣", "3.0", "9" * 5000, "-1", "v3"):
        with pytest.raises(DomainError) as refused:
            parse_version(bad)
        assert refused.value.code == "stalls_unknown_version"


def test_weeks_are_the_organizations_not_utcs():
    # Weeks in Kuala Lumpur (UTC+8) begin at 16:00 UTC on Sundays.
    period = Period(date(2026, 11, 25), date(2026, 12, 6))
    weeks = weeks_of(period, "Asia/Kuala_Lumpur")
    assert weeks.mondays == (date(2026, 11, 23), date(2026, 11, 30))
    assert weeks.starts == (
        # The first week starts with the period, on a Wednesday.
        datetime(2026, 11, 24, 16, 0, tzinfo=UTC),
        datetime(2026, 11, 29, 16, 0, tzinfo=UTC),
    )
    assert weeks.end == datetime(2026, 12, 6, 16, 0, tzinfo=UTC)
    assert utc_bounds(period, "Asia/Kuala_Lumpur") == (weeks.starts[0], weeks.end)
    counted = weeks.counted({1: (3, 2)})
    assert [(w.monday, w.submitted, w.finished) for w in counted] == [
        (date(2026, 11, 23), 0, 0),
        (date(2026, 11, 30), 3, 2),
    ]
    assert counted[1].iso_week == (2026, 49)
    assert counted[1].sunday == date(2026, 12, 6)


def test_weeks_follow_daylight_saving():
    # London moves to summer time on Sunday 29 March 2026: the week after begins at
    # 23:00 UTC on the Sunday, the week before at midnight.
    weeks = weeks_of(Period(date(2026, 3, 23), date(2026, 4, 5)), "Europe/London")
    assert weeks.starts == (
        datetime(2026, 3, 23, 0, 0, tzinfo=UTC),
        datetime(2026, 3, 29, 23, 0, tzinfo=UTC),
    )


def test_state_times_count_finished_visits_in_the_flows_order():
    times = in_order(
        [
            state_time("submitted", [2 * HOUR, 4 * HOUR]),
            state_time("zzz_retired", [60.0]),
            state_time("draft", [HOUR]),
        ],
        ["draft", "submitted"],
    )
    assert [(t.state, t.visits) for t in times] == [
        ("draft", 1),
        ("submitted", 2),
        ("zzz_retired", 1),
    ]
    submitted = times[1]
    assert (submitted.median_seconds, submitted.longest_seconds) == (3 * HOUR, 4 * HOUR)
    assert submitted.p90_seconds == pytest.approx(3.8 * HOUR)


def test_approvals_add_up_each_members_moves_that_the_rule_counts():
    groups = [
        MoveGroup(1, 7, "submitted", "approve", "approved", "target", "grant", 3),
        MoveGroup(1, 7, "submitted", "reject", "rejected", "advance", "grant", 5),
        MoveGroup(2, 7, "submitted", "approve", "approved", "target", "delegation", 1),
        MoveGroup(1, 9, "submitted", "approve", "approved", "target", "grant", 4),
    ]
    found = approvals(groups, lambda g: g.to_state != "rejected")
    assert [(a.member_id, a.approvals, a.under_cover, a.by_action) for a in found] == [
        (7, 4, 1, ((("submitted", "approve"), 4),)),
        (9, 4, 0, ((("submitted", "approve"), 4),)),
    ]
