"""The figures `portal bench soak` prints: throughput, latency per kind of request,
answers by status inside and outside the fault windows, the decisions' success rate, the
faults and restarts, and the checker's verdict against the targets."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from dataclasses import dataclass

from portal.bench.decisions import percentile
from portal.bench.soak_check import Verdict
from portal.bench.soak_faults import Fault
from portal.bench.soak_load import MIX, LoadRecord, Sample

# What each kind of request answers when all is well.
EXPECTED = {"inbox": 200, "document": 200, "decision": 302, "bulk": 200, "editor": 200}
SUCCESS_TARGET = 0.999


@dataclass(frozen=True)
class SoakResult:
    seconds: float
    rate: float
    threads: int
    organizations: int
    members: int
    record: LoadRecord
    faults: list[Fault]
    fault_errors: list[str]
    restarts: list[tuple[float, str]]
    undelivered: int
    verdict: Verdict
    logs: str
    passed_on: int = 0

    def in_window(self, sample: Sample) -> Fault | None:
        return next((f for f in self.faults if f.covers(sample.at)), None)

    @property
    def failures_outside(self) -> list[Sample]:
        """Answers of 500 and up, and requests with no answer, outside every window."""
        return [
            s
            for s in self.record.samples
            if (s.status == 0 or s.status >= 500) and self.in_window(s) is None
        ]

    @property
    def decisions_asked(self) -> int:
        return sum(a.asked for a in self.record.decisions)

    @property
    def decisions_made(self) -> int:
        return sum(a.accepted or 0 for a in self.record.decisions)

    @property
    def success(self) -> float:
        asked = self.decisions_asked
        return self.decisions_made / asked if asked else 0.0

    @property
    def passed(self) -> bool:
        return (
            self.verdict.passed
            and not self.failures_outside
            and self.success >= SUCCESS_TARGET
            and self.record.foreign_rows == 0
            and self.undelivered == 0
            and not self.fault_errors
        )


def report(result: SoakResult) -> Iterator[str]:
    samples = result.record.samples
    yield (
        f"soak: {result.seconds:.0f} s, {result.organizations} organizations,"
        f" {result.members} members signed in, {result.rate:g} requests/s asked"
        f" ({result.threads} threads)"
    )
    answered = [s for s in samples if s.status]
    yield (
        f"throughput: {len(samples) / result.seconds:.1f} requests/s"
        f" ({len(samples)} sent, {len(answered)} answered)"
    )
    yield f"{'kind':<10}{'count':>7}{'share':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}  answers"
    for kind in MIX:
        mine = [s for s in samples if s.kind == kind]
        times = [s.seconds * 1000 for s in mine if s.status]
        statuses = collections.Counter(s.status for s in mine)
        answers = " ".join(f"{status or 'none'}×{n}" for status, n in sorted(statuses.items()))
        yield (
            f"{kind:<10}{len(mine):>7}{len(mine) / max(len(samples), 1):>7.0%}"
            f"{percentile(times, 0.5):>9.1f}{percentile(times, 0.95):>9.1f}"
            f"{percentile(times, 0.99):>9.1f}  {answers}"
        )
    yield "faults (window: until whole again, + 10 s):"
    for fault in result.faults:
        inside = [s for s in samples if fault.covers(s.at)]
        bad = collections.Counter(
            s.status
            for s in inside
            if s.status == 0 or s.status >= 500 or s.status != EXPECTED[s.kind]
        )
        shown = ", ".join(f"{status or 'no answer'}×{n}" for status, n in sorted(bad.items()))
        slowest = max((s.seconds for s in inside if s.status), default=0.0)
        yield (
            f"  {fault.start:6.1f}–{fault.end:6.1f} s  {fault.name}: {fault.detail};"
            f" {len(inside)} requests, slowest answer {slowest:.1f} s,"
            f" other than expected: {shown or 'none'}"
        )
    for error in result.fault_errors:
        yield f"  NOT INJECTED {error}"
    for at, name in result.restarts:
        yield f"  {at:6.1f} s  {name} exited unplanned; the supervisor started it again"
    outside = collections.Counter(s.status for s in result.failures_outside)
    yield (
        "outside the fault windows, ≥ 500 or no answer: "
        + (
            ", ".join(f"{status or 'no answer'}×{n}" for status, n in sorted(outside.items()))
            or "0"
        )
    )
    for sample in result.failures_outside[:10]:
        yield f"  {sample.at:6.1f} s  {sample.kind}: {sample.status or 'no answer'} after {sample.seconds:.1f} s"
    unanswered = sum(1 for a in result.record.decisions if a.accepted is None)
    yield (
        f"decisions: {result.decisions_asked} asked, {result.decisions_made} made"
        f" ({result.success:.3%}; target ≥ {SUCCESS_TARGET:.1%}),"
        f" {sum(a.refused for a in result.record.decisions)} refused,"
        f" {unanswered} requests without an answer"
    )
    yield (
        f"requests the other web server answered after one failed: {result.passed_on};"
        f" inbox rows of another organization: {result.record.foreign_rows};"
        f" editor saves refused as stale: {result.record.stale_saves};"
        f" outbox events undelivered after the drain: {result.undelivered}"
    )
    yield "checker:"
    for check in result.verdict.checks:
        yield f"  {'pass' if check.passed else 'FAIL'}  {check.name}" + (
            f" ({check.counted})" if check.counted else ""
        )
        for problem in check.problems[:10]:
            yield f"        {problem}"
        if len(check.problems) > 10:
            yield f"        … and {len(check.problems) - 10} more"
    yield f"logs: {result.logs}"
    yield f"verdict: {'PASS' if result.passed else 'FAIL'}"
