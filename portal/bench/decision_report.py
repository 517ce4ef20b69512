"""What `portal bench decisions` prints: the rates, the latencies, where the CPU went
and the round trips, one figure a line."""

from __future__ import annotations

from collections.abc import Iterator

from portal.bench.decisions import Figures, percentile


def report(f: Figures) -> Iterator[str]:
    how = "over HTTP (gunicorn, 2 workers)" if f.http else "through the service layer"
    yield (
        f"decisions on {f.flow}, {how}: {f.clients} client(s), {f.documents} documents,"
        f" {f.history} finished documents before the clock"
    )
    yield f"{'phase':<18}{'calls':>8}{'seconds':>10}{'per s':>10}{'p50 ms':>9}{'p99 ms':>9}"
    for p in f.phases:
        p50, p99 = percentile(list(p.latencies), 0.5), percentile(list(p.latencies), 0.99)
        rate = p.calls / p.seconds if p.seconds else 0.0
        yield (
            f"{p.name:<18}{p.calls:>8}{p.seconds:>10.3f}{rate:>10.1f}"
            f"{p50 * 1000:>9.2f}{p99 * 1000:>9.2f}"
        )
    yield f"decisions/s        {f.decisions_per_second:10.1f}"
    yield f"documents/s        {f.documents_per_second:10.1f}  (all three steps)"
    yield (
        f"per decision       p50 {f.decision_latency(0.5) * 1000:.2f} ms,"
        f" p99 {f.decision_latency(0.99) * 1000:.2f} ms"
    )
    cpu = [("client", f.per_decision("client"))]
    if f.http:
        cpu.append(("server", f.per_decision("server")))
    cpu.append(("database", f.per_decision("database")))
    yield "CPU per decision   " + ", ".join(f"{name} {ms * 1000:.2f} ms" for name, ms in cpu)
    if f.round_trips:
        yield "round trips        " + ", ".join(
            f"{label} {count:g}" for label, count in f.round_trips.items()
        )
    for shown in f.plans:
        yield ""
        yield shown.statement
        yield from ("    " + line for line in shown.plan.splitlines())
