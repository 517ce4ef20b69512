"""One client of `portal bench decisions`: a process of its own with its own
connection (or, over HTTP, its own signed-in sessions) and its own documents.

It creates its drafts, takes a few of them through all three steps untimed (caches,
prepared statements, sessions), then, at each of the three barriers, takes every
document through one step and reports when it started, when it finished, each call's
latency and its own CPU. Everything a call needs (the reference, the actor, the
session, the form) is ready before the call's clock starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from portal.bench.decision_world import AMOUNT, DecisionWorld, FlowSpec
from portal.config import Settings
from portal.domain.actor import Actor

# A step: (the document's reference, who acts, the transition, the state seen).
Call = tuple[str, Actor, str, str]


@dataclass(frozen=True)
class ClientPlan:
    settings: Settings
    index: int
    world: DecisionWorld
    flow: FlowSpec
    requesters: tuple[Actor, ...]
    documents: int
    warm_up: int
    base_url: str | None = None  # over HTTP: the gunicorn server's address


@dataclass
class PhaseResult:
    started: float
    finished: float
    latencies: list[float] = field(default_factory=list)
    cpu: float = 0.0


@dataclass
class ClientResult:
    index: int
    phases: list[PhaseResult]
    error: str | None = None


def run_client(
    plan: ClientPlan, create_app: Callable[[Any], Any], barrier: Any, results: Any
) -> None:
    """The body of one client process (spawned: nothing inherited but the plan and the
    application factory, which the command passes down)."""
    app = create_app(replace(plan.settings, embedded_worker=False, db_pool_size=1))
    phases: list[PhaseResult] = []
    try:
        with app.app_context():
            references = _drafts(plan)
            act = _http_caller(plan) if plan.base_url else _service_caller()
            warm, timed = references[: plan.warm_up], references[plan.warm_up :]
            steps = range(len(plan.flow.steps))
            for step in steps:
                for call in _calls(plan, warm, step):
                    act(call)
            barrier.wait()  # warmed up: the lead may multiply the history now
            barrier.wait()
            for step in steps:
                calls = _calls(plan, timed, step)
                barrier.wait()
                phases.append(_timed(act, calls))
                barrier.wait()
        results.put(ClientResult(plan.index, phases))
    except BaseException as failed:
        # The report first: the lead stops everyone as soon as the barrier breaks.
        results.put(ClientResult(plan.index, phases, f"{type(failed).__name__}: {failed}"))
        barrier.abort()


def _timed(act: Callable[[Call], None], calls: list[Call]) -> PhaseResult:
    cpu = time.process_time()
    result = PhaseResult(time.perf_counter(), 0.0)
    for call in calls:
        start = time.perf_counter()
        act(call)
        result.latencies.append(time.perf_counter() - start)
    result.finished = time.perf_counter()
    result.cpu = time.process_time() - cpu
    return result


def _drafts(plan: ClientPlan) -> list[tuple[str, Actor]]:
    from portal.documents import services as documents

    made = []
    for i in range(plan.warm_up + plan.documents):
        requester = plan.requesters[i % len(plan.requesters)]
        doc = documents.create_document(
            requester,
            kind=plan.flow.kind,
            title=f"Bench {plan.index}.{i}",
            amount=AMOUNT,
            fields=dict(plan.flow.fields),
        )
        made.append((doc.reference, requester))
    return made


def _calls(plan: ClientPlan, documents: list[tuple[str, Actor]], step: int) -> list[Call]:
    transition, seen, role = plan.flow.steps[step]
    return [
        (ref, plan.world.decider(role, requester), transition, seen) for ref, requester in documents
    ]


def _service_caller() -> Callable[[Call], None]:
    from portal.documents.transitions import transition_document

    def act(call: Call) -> None:
        reference, actor, transition, seen = call
        transition_document(actor, reference, transition, seen_state=seen)

    return act


def _http_caller(plan: ClientPlan) -> Callable[[Call], None]:
    """Decisions through the document page's form, each actor signed in once."""
    import requests

    assert plan.base_url is not None
    base, slug = plan.base_url, plan.world.slug
    sessions: dict[int, tuple[Any, str]] = {}

    def signed_in(actor: Actor) -> tuple[Any, str]:
        if actor.member_id not in sessions:
            web = requests.Session()
            email = plan.world.emails[actor.member_id]
            token = _csrf(web.get(f"{base}/login").text)
            answer = web.post(
                f"{base}/login",
                data={"email": email, "password": plan.world.password, "csrf_token": token},
                allow_redirects=False,
            )
            if answer.status_code != 302:
                raise RuntimeError(f"{email} could not sign in ({answer.status_code})")
            # Signing in starts a new session, and with it a new form token.
            token = _csrf(web.get(f"{base}/o/{slug}/inbox/").text)
            sessions[actor.member_id] = (web, token)
        return sessions[actor.member_id]

    for requester in plan.requesters:  # sign everyone in before any clock starts
        for _transition, _seen, role in plan.flow.steps:
            signed_in(plan.world.decider(role, requester))

    def act(call: Call) -> None:
        reference, actor, transition, seen = call
        web, token = sessions[actor.member_id]
        # A browser follows the redirect, whose page takes the "Done" notice back out of
        # the session: keep the session as it was, or each notice would grow it.
        kept = web.cookies.copy()
        answer = web.post(
            f"{base}/o/{slug}/documents/{reference}/transition",
            data={"transition": transition, "seen_state": seen, "csrf_token": token},
            allow_redirects=False,
        )
        web.cookies = kept
        if answer.status_code != 302:
            raise RuntimeError(f"{reference} {transition}: HTTP {answer.status_code}")

    return act


def _csrf(page: str) -> str:
    return page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
