"""Temporary probe: statements and time per outbox event (not collected by default)."""

from __future__ import annotations

import collections
import cProfile
import os
import pstats
import time

from sqlalchemy import event

from portal.core import outbox
from portal.core.db import db
from portal.core.uow import unit_of_work
from portal.core.outbox import add_events

N, M = int(os.environ.get("PROBE_N", "40")), int(os.environ.get("PROBE_M", "20"))


def test_probe(people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    outbox.dispatch_outbox(siti.org_id)
    payload = {"document_id": None, "reference": "X-1", "state": "draft"}
    events = [("notify.document_moved", {**payload, "members": [siti.member_id]})] * N + [
        ("notify.task_assigned", {**payload, "members": [nurul.member_id]})
    ] * M
    with unit_of_work(siti.org_id) as uow:
        add_events(uow.session, events)
    counts: collections.Counter[str] = collections.Counter()

    def count(conn, cursor, statement, params, context, executemany):
        counts[" ".join(statement.split())[:int(os.environ.get("PROBE_W", "90"))]] += 1

    event.listen(db.engine, "before_cursor_execute", count)
    prof = cProfile.Profile()
    started = time.perf_counter()
    prof.enable()
    delivered = outbox.dispatch_outbox(siti.org_id, limit=10_000)
    prof.disable()
    took = time.perf_counter() - started
    event.remove(db.engine, "before_cursor_execute", count)
    total = sum(counts.values())
    print(f"\ndelivered {delivered} events in {took:.3f}s ({delivered / took:.0f}/s);"
          f" {total} statements, {total / delivered:.2f} per event; mails {len(mailbox.received)}")
    for stmt, n in counts.most_common(40):
        print(f"{n:6} {stmt}")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
    assert delivered == N + 2 * M
