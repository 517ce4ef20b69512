"""Temporary probe: time per handler kind, no profiler."""

from __future__ import annotations

import collections
import time

from portal.core import outbox
from portal.core.uow import unit_of_work
from portal.core.outbox import add_events


def test_probe(people, mailbox):
    siti, nurul = people("siti"), people("nurul")
    outbox.dispatch_outbox(siti.org_id)
    doc_payload = {"document_id": None, "reference": "X-1", "state": "draft"}
    times: collections.defaultdict[str, float] = collections.defaultdict(float)
    counts: collections.Counter[str] = collections.Counter()
    real = {p: outbox.handler_for(p) for p in ("notify.", "mail.")}

    def timed(prefix):
        def run(session, event):
            started = time.perf_counter()
            try:
                real[prefix](session, event)
            finally:
                times[event.topic] += time.perf_counter() - started
                counts[event.topic] += 1
        return run

    for p in real:
        outbox.register(p, timed(p))
    import portal.web.mail as wm
    import portal.notifications.mail as nm
    import portal.core.mail as cm

    def wrap(mod, name):
        fn = getattr(mod, name)

        def run(*a, **k):
            started = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                times["  " + name] += time.perf_counter() - started
                counts["  " + name] += 1
        return fn, run

    saved = []
    for mod, name in ((wm, "render_letter"), (wm, "build_message"), (nm, "_recipient"), (nm, "_mailed"), (cm.SmtpTransport, "send")):
        fn, run = wrap(mod, name)
        saved.append((mod, name, fn))
        setattr(mod, name, run)
    nm.COMPOSERS["notice"] = nm.notice
    try:
        events = [("notify.document_moved", {**doc_payload, "members": [siti.member_id]})] * 300 + [
            ("notify.task_assigned", {**doc_payload, "members": [nurul.member_id]})
        ] * 150
        with unit_of_work(siti.org_id) as uow:
            add_events(uow.session, events)
        started = time.perf_counter()
        delivered = outbox.dispatch_outbox(siti.org_id, limit=10_000)
        took = time.perf_counter() - started
    finally:
        for p in real:
            outbox.register(p, real[p])
    print(f"\n{delivered} in {took:.2f}s = {delivered/took:.0f}/s")
    for topic in times:
        print(f"{topic:30} {counts[topic]:5} {1000*times[topic]/counts[topic]:7.2f} ms each")
    for mod, name, fn in saved:
        setattr(mod, name, fn)
    print(f"outside handlers: {1000*(took - sum(v for k, v in times.items() if not k.startswith(' ')))/delivered:.2f} ms per event")
