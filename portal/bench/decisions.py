"""`portal bench decisions`: decisions per second measured the way other approval
engines are measured, so that the figures stand beside theirs.

A three-step approval (submit → the manager approves → finance approves → done); a
*decision* is one approval, two per document. N client processes, each with its own
connection and its own documents, run three phases — every client submits all its
documents, then takes every first approval, then every second — with a barrier
between phases. decisions/s = 2·documents / (t_first + t_second), each phase's time
from the first client's start to the last client's finish; latency is each call's, on
the client, nearest-rank percentiles. With ``http`` the same phases go through the
document page's form served by gunicorn with two workers.

CPU is split between the clients, the web server (HTTP only) and the database (the
PostgreSQL backends serving this database, when the server runs on this machine);
round trips per call are counted on a few more documents, from libpq's trace.
"""

from __future__ import annotations

import math
import multiprocessing
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from portal.bench import probes
from portal.bench.cleanup import purge_organizations
from portal.bench.decision_clients import ClientPlan, ClientResult, run_client
from portal.bench.decision_world import (
    AMOUNT,
    EXPENSE_CLAIM,
    THREE_STEP,
    DecisionWorld,
    FlowSpec,
    build_decision_world,
    multiply_history,
)
from portal.bench.plans import Explained, captured, explain
from portal.bench.worker_processes import free_port, worker_environment
from portal.config import Settings
from portal.core.db import db

WARM_UP = 10  # documents per client taken through every step before the clock starts
PROBED = 5  # documents whose calls' round trips are counted
PHASES = ("submit", "first approval", "second approval")


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: the smallest value with at least ``share`` of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else 0.0


@dataclass(frozen=True)
class Phase:
    name: str
    calls: int
    seconds: float
    latencies: tuple[float, ...]
    client_cpu: float
    server_cpu: float
    database_cpu: float


@dataclass(frozen=True)
class Figures:
    flow: str
    clients: int
    documents: int
    history: int  # finished documents of the organization before the clock started
    http: bool
    phases: tuple[Phase, ...]
    round_trips: dict[str, float]
    plans: tuple[Explained, ...] = ()

    @property
    def decisions_per_second(self) -> float:
        decided = self.phases[1:]
        return sum(p.calls for p in decided) / sum(p.seconds for p in decided)

    @property
    def documents_per_second(self) -> float:
        """Documents taken through all three steps per second."""
        return self.documents / sum(p.seconds for p in self.phases)

    def decision_latency(self, share: float) -> float:
        return percentile([t for p in self.phases[1:] for t in p.latencies], share)

    def per_decision(self, what: str) -> float:
        """Seconds of ``what`` CPU (client, server, database) per decision."""
        decided = self.phases[1:]
        return sum(getattr(p, f"{what}_cpu") for p in decided) / sum(p.calls for p in decided)


def bench_decisions(
    settings: Settings,
    *,
    clients: int,
    documents: int,
    history: int,
    http: bool,
    expense_claim: bool,
    create_app: Callable[[Any], Any],
    plans: bool = False,
    progress: Callable[[str], None] = print,
) -> Figures:
    """Build the world, run the three phases with ``clients`` processes sharing
    ``documents``, count round trips, remove the world. ``history``: the organization
    holds that many times ``documents`` finished documents before the clock starts."""
    if clients > 1 and settings.database_url.startswith("sqlite"):
        # Each SQLite transaction starts as a reader; two that both go on to write make
        # one fail at once ("database is locked"): SQLite serves one writing process.
        raise ValueError("SQLite serves one writing client: use --clients 1, or PostgreSQL")
    flow = EXPENSE_CLAIM if expense_claim else THREE_STEP
    owner_url = settings.migrate_database_url
    progress("building a benchmark organization …")
    world = build_decision_world()
    server = start_gunicorn(settings) if http else None
    try:
        phases, held = _run(
            settings, world, flow, (clients, documents, history), server, create_app, progress
        )
        progress("counting round trips …")
        trips = _round_trips(world, flow)
        shown = _plans(world, flow) if plans else ()
        return Figures(flow.kind, clients, documents, held, http, phases, trips, shown)
    finally:
        if server is not None:
            stop_gunicorn(server[0])
        purge_organizations(owner_url, slug_like=world.slug, email_like=f"%@{world.slug}.test")


def _run(
    settings: Settings,
    world: DecisionWorld,
    flow: FlowSpec,
    sizes: tuple[int, int, int],
    server: tuple[subprocess.Popen[bytes], str] | None,
    create_app: Callable[[Any], Any],
    progress: Callable[[str], None],
) -> tuple[tuple[Phase, ...], int]:
    clients, documents, history = sizes
    owner_url = settings.migrate_database_url
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(clients + 1)
    results = spawn.Queue()
    shares = [documents // clients + (1 if i < documents % clients else 0) for i in range(clients)]
    base_url = server[1] if server else None
    processes = [
        spawn.Process(
            target=run_client,
            args=(
                ClientPlan(
                    settings,
                    i,
                    world,
                    flow,
                    tuple(world.requesters[i::clients]),
                    shares[i],
                    WARM_UP,
                    base_url,
                ),
                create_app,
                barrier,
                results,
            ),
        )
        for i in range(clients)
    ]
    for process in processes:
        process.start()
    progress(f"{clients} clients creating {documents} documents and warming up …")
    try:
        barrier.wait()
        warmed = clients * WARM_UP
        copies = max(0, math.ceil((history * documents - warmed) / warmed))
        held = warmed + multiply_history(owner_url, world.org_id, flow.finished, copies)
        if copies:
            progress(f"the organization now holds {held} finished documents")
        barrier.wait()
        assert db.engine is not None
        backends = probes.backend_pids(db.engine)
        web = probes.child_pids(server[0].pid) if server else []
        samples = []
        for name in PHASES:
            progress(f"phase: {name} …")
            before = probes.cpu_seconds(backends), probes.cpu_seconds(web)
            barrier.wait()
            barrier.wait()
            after = probes.cpu_seconds(backends), probes.cpu_seconds(web)
            samples.append((name, after[0] - before[0], after[1] - before[1]))
    except Exception:
        failure = _failure(results)
        for process in processes:
            process.kill()
        raise failure from None
    finished: list[ClientResult] = [results.get(timeout=600) for _ in processes]
    for process in processes:
        process.join()
    failed = [r.error for r in finished if r.error]
    if failed:
        raise RuntimeError(f"a client failed: {failed[0]}")
    phases = []
    for i, (name, database_cpu, server_cpu) in enumerate(samples):
        ran = [r.phases[i] for r in finished]
        phases.append(
            Phase(
                name,
                sum(len(p.latencies) for p in ran),
                max(p.finished for p in ran) - min(p.started for p in ran),
                tuple(t for p in ran for t in p.latencies),
                sum(p.cpu for p in ran),
                server_cpu,
                database_cpu,
            )
        )
    return tuple(phases), held


def _failure(results: Any) -> RuntimeError:
    try:
        report: ClientResult = results.get(timeout=5)
    except Exception:
        return RuntimeError("a client stopped without a report")
    return RuntimeError(f"a client failed: {report.error}")


def _round_trips(world: DecisionWorld, flow: FlowSpec) -> dict[str, float]:
    """Round trips of a creation and of each step, over PROBED documents, service layer."""
    from portal.documents import services as documents
    from portal.documents.transitions import transition_document

    assert db.engine is not None
    requester = world.requesters[0]
    with probes.traced(db.engine) as measure:
        if measure is None:
            return {}
        for i in range(PROBED + 2):
            # The first two documents warm the new connection up; they are not counted.
            label = (lambda what: what) if i >= 2 else (lambda what: f"warm {what}")
            with measure(label("create")):
                doc = documents.create_document(
                    requester,
                    kind=flow.kind,
                    title=f"Probe {i}",
                    amount=AMOUNT,
                    fields=dict(flow.fields),
                )
            for transition, seen, role in flow.steps:
                with measure(label(f"{transition} at {seen}")):
                    transition_document(
                        world.decider(role, requester), doc.reference, transition, seen_state=seen
                    )
        trips = measure.trips
    return {label: trips.per_call(label) for label in trips.calls if not label.startswith("warm")}


class _Undone(Exception):
    """Rolls the explained decision back, so that its statements can be run again."""


def _plans(world: DecisionWorld, flow: FlowSpec) -> tuple[Explained, ...]:
    """The generic plans of the statements of one decision (the first approval), over
    the organization as the phases left it: the decision is taken and rolled back, then
    each of its statements is run again (and rolled back) under EXPLAIN."""
    from portal.core.uow import unit_of_work_for
    from portal.documents import services as documents
    from portal.documents.transitions import transition_document, transition_in

    assert db.engine is not None
    requester = world.requesters[0]
    doc = documents.create_document(
        requester, kind=flow.kind, title="Explained", amount=AMOUNT, fields=dict(flow.fields)
    )
    (submit, draft, _role), (transition, seen, role) = flow.steps[:2]
    transition_document(requester, doc.reference, submit, seen_state=draft)
    actor = world.decider(role, requester)
    try:
        with captured(db.engine) as statements, unit_of_work_for(actor) as uow:
            transition_in(uow, actor, doc.reference, transition, seen_state=seen)
            raise _Undone
    except _Undone:
        pass
    return tuple(explain(db.engine, world.org_id, statements, _chooses_a_plan))


def _chooses_a_plan(statement: str) -> bool:
    """Reads, updates and deletes (an INSERT … VALUES has no plan to choose)."""
    return "set_config" not in statement and not statement.lstrip().upper().startswith("INSERT")


def start_gunicorn(settings: Settings) -> tuple[subprocess.Popen[bytes], str]:
    """gunicorn with two sync workers on a free loopback port, the benchmark's settings,
    no worker of its own and no access log; returns it and its address."""
    import requests

    port = free_port()
    env = {
        **worker_environment(settings, settings.instance_dir),
        "PORTAL_EMBEDDED_WORKER": "0",
        "PORTAL_WEB_ACCESS_LOG": "",  # the checkout's gunicorn.conf.py: no access log
    }
    server = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            "2",
            "--bind",
            f"127.0.0.1:{port}",
            "portal.app:create_app()",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    address = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{address}/healthz", timeout=10).status_code == 200:
                return server, address
        except requests.RequestException:  # not listening yet, or its workers still booting
            time.sleep(0.2)
    stop_gunicorn(server)
    raise RuntimeError("gunicorn did not start within a minute")


def stop_gunicorn(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
