"""The benchmarks' probes: round trips read from libpq's trace, CPU from /proc."""

from __future__ import annotations

import os

from portal.bench.probes import _round_trips_in, cpu_seconds


def test_a_round_trip_is_a_turn_of_the_conversation_not_a_message():
    one_statement = "F\t4\tParse\nF\t4\tBind\nF\t4\tExecute\nF\t4\tSync\nB\t4\tParseComplete\nB\t5\tReadyForQuery"
    assert _round_trips_in(one_statement) == 1
    # Two statements, the second sent only after the first's answer: two round trips.
    assert _round_trips_in(one_statement + "\n" + one_statement) == 2
    # Pipelined: everything sent before any answer is read counts once.
    pipelined = "F\t1\tBind\nF\t1\tSync\nF\t1\tBind\nF\t1\tSync\nB\t1\tBindComplete\nB\t1\tReadyForQuery\nB\t1\tReadyForQuery"
    assert _round_trips_in(pipelined) == 1
    assert _round_trips_in("") == 0


def test_cpu_seconds_reads_live_processes_and_counts_gone_ones_as_nothing():
    busy = sum(i * i for i in range(200_000))  # some CPU for this process
    assert busy > 0
    assert cpu_seconds([os.getpid()]) > 0
    assert cpu_seconds([2**22 + 12345]) == 0  # no such process
