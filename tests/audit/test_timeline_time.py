"""The time a document spent in each state, from its history alone: each visit from the
decision that entered the state (or the document's creation) to the one that left it,
the current state counting up to now, and a decision that leaves the state where it was
(a handover) no move at all."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from portal.audit.queries.timeline import document_timeline
from portal.core.clock import clock
from portal.domain.timeline import Move, path_of, time_in_states
from tests.audit.timelines import the_long_way, urls
from tests.factories import demo_browser

T0 = datetime(2026, 11, 2, 1, 0, tzinfo=UTC)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def test_each_visit_lasts_from_the_decision_that_entered_it_to_the_one_that_left_it():
    moves = [
        Move(1, "draft", "pending_review", at(1)),
        Move(2, "pending_review", "rejected", at(25)),
        Move(3, "rejected", "draft", at(26)),
        Move(4, "draft", "pending_review", at(28)),
        # A handover: the task moved, the document stayed where it was.
        Move(5, "pending_review", "pending_review", at(30)),
        Move(6, "pending_review", "reviewed", at(40)),
    ]
    spent = time_in_states(T0, moves, "reviewed", now=at(50))

    assert [(v.state, v.duration) for v in spent.visits] == [
        ("draft", timedelta(hours=1)),
        ("pending_review", timedelta(hours=24)),
        ("rejected", timedelta(hours=1)),
        ("draft", timedelta(hours=2)),
        ("pending_review", timedelta(hours=12)),
        ("reviewed", timedelta(hours=10)),  # still there: counted up to now
    ]
    assert [v.entered_by for v in spent.visits] == [None, 1, 2, 3, 4, 6]
    assert spent.visits[-1].open and not spent.visits[-2].open
    totals = {t.state: (t.visits, t.total, t.current) for t in spent.totals}
    assert totals == {
        "draft": (2, timedelta(hours=3), False),
        "pending_review": (2, timedelta(hours=36), False),
        "rejected": (1, timedelta(hours=1), False),
        "reviewed": (1, timedelta(hours=10), True),
    }
    # The totals add up to the document's whole life.
    assert sum((t.total for t in spent.totals), timedelta()) == spent.elapsed == at(50) - T0
    assert [(m.from_state, m.to_state) for m in path_of(moves)] == [
        ("draft", "pending_review"),
        ("pending_review", "rejected"),
        ("rejected", "draft"),
        ("draft", "pending_review"),
        ("pending_review", "reviewed"),
    ]


def test_a_document_that_never_moved_has_spent_its_life_where_it_is():
    spent = time_in_states(T0, [], "draft", now=at(5))
    assert [(v.state, v.duration, v.open) for v in spent.visits] == [
        ("draft", timedelta(hours=5), True)
    ]
    assert path_of([]) == []


def test_a_clock_that_went_backwards_counts_no_time_never_negative():
    moves = [
        Move(1, "draft", "pending_review", at(3)),
        Move(2, "pending_review", "approved", at(2)),
    ]
    spent = time_in_states(T0, moves, "approved", now=at(1))
    assert [v.duration for v in spent.visits] == [timedelta(hours=3), timedelta(0), timedelta(0)]
    # Naive times (SQLite's) and aware ones are both UTC.
    naive = time_in_states(T0.replace(tzinfo=None), moves[:1], "pending_review", now=at(4))
    assert naive.visits[0].duration == timedelta(hours=3)


def test_the_timeline_shows_the_time_in_each_state_of_a_real_history(app, people, globex):
    created = clock.now()
    clock.freeze(created)
    steps = iter([timedelta(hours=h) for h in (2, 24, 1, 3, 5, 48)])
    doc = the_long_way(people, before_each=lambda: clock.advance(next(steps)))
    clock.advance(timedelta(hours=10))

    timeline = document_timeline(people("ravi"), doc.reference)
    totals = {t.state: (t.visits, t.total) for t in timeline.time.totals}
    assert totals == {
        "draft": (2, timedelta(hours=2 + 3)),
        "pending_review": (2, timedelta(hours=24 + 5)),
        "rejected": (1, timedelta(hours=1)),
        "reviewed": (1, timedelta(hours=48)),
        "approved": (1, timedelta(hours=10)),
    }
    assert timeline.time.elapsed == timedelta(hours=2 + 24 + 1 + 3 + 5 + 48 + 10)

    ravi, _ = demo_browser(app, "ravi")
    html = ravi.get(urls(doc.reference)["page"]).get_data(as_text=True)
    table = html.split('data-testid="time-in-states"')[1].split("</table>")[0]
    rows = re.findall(
        r'tone-\w+">([^<]+)</span>.*?<td class="num">(\d+)</td><td class="num">([^<]+)</td>', table
    )
    assert rows == [
        ("Draft", "2", "5 hours"),
        ("Pending review", "2", "1 day"),
        ("Rejected", "1", "1 hour"),
        ("Reviewed", "1", "2 days"),
        ("Approved", "1", "10 hours"),
    ]
    assert "(now; still counting)" in table


def test_a_finished_document_spends_no_time_in_its_terminal_state():
    moves = [
        Move(1, "draft", "pending_review", at(1)),
        Move(2, "pending_review", "rejected", at(5)),
    ]
    going_on = time_in_states(T0, moves, "rejected", now=at(50))
    finished = time_in_states(T0, moves, "rejected", now=at(5), finished=True)

    assert going_on.visits[-1].open and going_on.elapsed == timedelta(hours=50)
    assert [v.state for v in finished.visits] == ["draft", "pending_review"]
    assert not any(v.open for v in finished.visits)
    assert finished.elapsed == timedelta(hours=5)
