"""`portal bench validate`: how long the validator takes, on the seeded flows, on a
generated graph at the size caps, and on the same shape at 8, 32 and 64 states to show
how it grows (the editor runs it on every change)."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from portal.domain.actor import Role
from portal.domain.graph import (
    MAX_GRANTS,
    MAX_STATES,
    MAX_TRANSITIONS,
    Choice,
    CommentPolicy,
    DocumentField,
    FieldType,
    Gate,
    Grant,
    Grantee,
    GranteeKind,
    Graph,
    State,
    StateRole,
    Transition,
    TransitionGuard,
)
from portal.domain.labels import Labels
from portal.domain.validate import errors_in, validate
from portal.flows.seeded import seeded_graphs

BENCH_CURRENCY = "MYR"
MIN_SCALED_STATES = 7  # the fixed states and one step
SCALED_STATES = (8, 32, 64)  # the sizes `portal bench validate` shows the growth at


def _label(text: str) -> Labels:
    return Labels({"en": text, "zh": text, "ms": text})


def capped_graph() -> Graph:
    """A valid graph with exactly 64 states, 256 transitions and 256 grants: a long
    approval chain with rejections, withdrawals, fast-track skips, guards, bands and
    every grantee kind that needs no chart data."""
    return scaled_graph(MAX_STATES)


def scaled_graph(states: int) -> Graph:
    """The capped graph's shape with ``states`` states (7 at least), and four transitions
    and four grants per state, up to the caps: how the validator grows with a flow."""
    if not MIN_SCALED_STATES <= states <= MAX_STATES:
        raise ValueError(f"a scaled graph has {MIN_SCALED_STATES} to {MAX_STATES} states")
    wanted_transitions = min(4 * states, MAX_TRANSITIONS)
    wanted_grants = min(4 * states, MAX_GRANTS)
    steps = [f"step_{i:02d}" for i in range(1, states - 5)]  # the pending steps
    states_drawn = [
        State("draft", _label("Draft"), StateRole.DRAFT),
        *(State(key, _label(key), StateRole.PENDING) for key in steps),
        State("booked", _label("Booked"), StateRole.ACCRUAL),
        State("paid", _label("Paid"), StateRole.PAYOUT),
        State("done", _label("Done"), StateRole.ACKNOWLEDGED, terminal=True),
        State("rejected", _label("Rejected"), StateRole.REJECTED),
        State("cancelled", _label("Cancelled"), StateRole.CANCELLED, terminal=True),
    ]
    chain = ["draft", *steps, "booked", "paid", "done"]
    guard = TransitionGuard(
        'document.amount > 100 and document.fields.category in ["travel", "meals"]',
        _label("Only travel and meals above 100."),
    )
    transitions: list[Transition] = []
    for i, (source, target) in enumerate(itertools.pairwise(chain)):
        gate = Gate.REQUESTER if source in ("draft", "paid") else Gate.TARGET
        transitions.append(
            Transition(
                f"go_{i}",
                source,
                target,
                gate,
                _label("Go"),
                guard=guard if i % 4 == 0 else None,
            )
        )

    def with_comment(key: str, source: str, target: str, gate: str, reverses: bool = False):
        return Transition(
            key,
            source,
            target,
            gate,
            _label(key),
            comment=CommentPolicy.REQUIRED,
            reverses=reverses,
        )

    for source in [*steps, "booked"]:
        transitions.append(
            with_comment("reject", source, "rejected", Gate.ADVANCE, source == "booked")
        )
    transitions.append(Transition("revise", "rejected", "draft", Gate.REQUESTER, _label("Revise")))
    for source in steps:
        transitions.append(with_comment("withdraw", source, "cancelled", Gate.REQUESTER))
    # Fast tracks skip two steps, then three, ...; a short chain runs out of skips, and
    # then each step refers the document on to the next one in as many ways as it takes.
    for skip in range(2, len(steps)):
        for i in range(len(steps) - skip):
            if len(transitions) < wanted_transitions:
                transitions.append(
                    Transition(
                        f"fast_track_{skip}", steps[i], steps[i + skip], Gate.SOURCE, _label("Skip")
                    )
                )
    onward = [*steps, "booked"]
    referral = 0
    while len(transitions) < wanted_transitions:
        referral += 1
        for source, target in itertools.pairwise(onward):
            if len(transitions) < wanted_transitions:
                transitions.append(
                    Transition(f"refer_{referral}", source, target, Gate.SOURCE, _label("Refer"))
                )

    kinds = [
        Grantee(GranteeKind.SUPERIOR),
        Grantee(GranteeKind.UNIT_HEAD, walk_up=True),
        Grantee(GranteeKind.LEVELS_UP, levels=2),
        Grantee(GranteeKind.ROLE, role=Role.ADMIN),
    ]
    floors = [Decimal("0"), Decimal("1000"), Decimal("5000"), Decimal("20000")]
    grants = [
        Grant(kinds[n], state=state, min_amount=floors[n], currency=BENCH_CURRENCY)
        for state in [*steps, "booked", "paid"]
        for n in range(4)
    ]
    while len(grants) < wanted_grants:
        grants.append(
            Grant(
                Grantee(GranteeKind.LEVELS_UP, levels=1 + len(grants) % 9),
                all_states=True,
                min_amount=Decimal(len(grants)),
                currency=BENCH_CURRENCY,
            )
        )
    return Graph(
        kind="bench_capped" if states == MAX_STATES else f"bench_scaled_{states}",
        labels=_label("Capped" if states == MAX_STATES else f"Scaled to {states}"),
        states=tuple(states_drawn),
        transitions=tuple(transitions),
        grants=tuple(grants),
        fields=(
            DocumentField(
                "category",
                FieldType.CHOICE,
                _label("Category"),
                required=True,
                choices=tuple(Choice(c, _label(c)) for c in ("travel", "meals", "other")),
            ),
        ),
    ).normalised()


@dataclass(frozen=True)
class Timing:
    name: str
    size: str
    median_ms: float
    p95_ms: float


def _time(name: str, graph: Graph, rounds: int) -> Timing:
    run: Callable[[], object] = lambda: validate(graph, base_currency=BENCH_CURRENCY)  # noqa: E731
    for _ in range(min(20, rounds)):  # warm caches and the allocator
        run()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        run()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    samples.sort()
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    size = f"{len(graph.states)}/{len(graph.transitions)}/{len(graph.grants)}"
    return Timing(name, size, statistics.median(samples), p95)


def bench_validate(rounds: int = 300) -> list[Timing]:
    graphs = [(g.kind, g) for g in seeded_graphs(BENCH_CURRENCY)]
    graphs.append(("capped (generated)", capped_graph()))
    graphs.extend(("scaled (generated)", scaled_graph(states)) for states in SCALED_STATES)
    for name, graph in graphs:
        if errors_in(validate(graph, base_currency=BENCH_CURRENCY)):
            raise RuntimeError(f"benchmark graph {name} is invalid")
    return [_time(name, graph, rounds) for name, graph in graphs]
