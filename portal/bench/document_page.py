"""`portal bench document`: the document page's server time for an approver with an open
task on a claim that has been through N decisions (30 by default) — beside a bare Flask
route rendering the same number of history rows from a list in memory, in the same run.

The organization is `bench transitions`' (teams of staff under a lead under a head, two
admins) with its seeded expense claim; each claim gets its decisions through the
transition service, the way people take them: submitted, rejected with a comment by the
lead (or reviewed, then rejected by the head), revised and submitted again, until the
last decision leaves it waiting on someone. Beside the main claim, claims with 1, 10
and 30 decisions show how the page grows with its history.

Each page load's SQL statements and transactions are counted from the engine's events.
The organization and its accounts are removed afterwards unless ``keep`` is asked for.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from flask import Flask, has_app_context, render_template_string
from flask.testing import FlaskClient
from sqlalchemy import event

from portal.bench.cleanup import purge_organizations
from portal.bench.transitions import FIELDS, build_world
from portal.core.db import db

PASSWORD = "bench-pass-123"  # noqa: S105 - build_world's throwaway accounts
SCALE = (1, 10, 30)
WARM_UP = 5
COMMENT = "The receipt for the taxi is missing; please attach it and submit again."

# One step: the transition, who takes it (a role in the world), the state it leaves.
Step = tuple[str, str, str]
# Back to the draft after a rejection: by the lead at review, or by the head at approval.
_REJECTED_AT_REVIEW: tuple[Step, ...] = (
    ("submit", "requester", "draft"),
    ("reject", "superior", "pending_review"),
    ("revise", "requester", "rejected"),
)
_REJECTED_AT_APPROVAL: tuple[Step, ...] = (
    ("submit", "requester", "draft"),
    ("review", "superior", "pending_review"),
    ("reject", "head", "reviewed"),
    ("revise", "requester", "rejected"),
)
# The last steps, each leaving the claim waiting on someone: the lead (review), the
# head (approval) or the admins (the category check).
_ENDINGS: tuple[tuple[tuple[Step, ...], str], ...] = (
    ((("submit", "requester", "draft"),), "superior"),
    ((("submit", "requester", "draft"), ("review", "superior", "pending_review")), "head"),
    (
        (
            ("submit", "requester", "draft"),
            ("review", "superior", "pending_review"),
            ("approve", "head", "reviewed"),
        ),
        "admin",
    ),
)


def plan(decisions: int) -> tuple[list[Step], str]:
    """Steps that give a claim exactly ``decisions`` decisions and leave it open, and who
    then holds its task: the lead when the rework rounds add up, else the head or the
    admins."""
    for ending, holder in _ENDINGS:
        rest = decisions - len(ending)
        for long_rounds in range(rest // 4 + 1 if rest >= 0 else 0):
            if (rest - 4 * long_rounds) % 3 == 0:
                rounds = [_REJECTED_AT_APPROVAL] * long_rounds
                rounds += [_REJECTED_AT_REVIEW] * ((rest - 4 * long_rounds) // 3)
                return [step for r in rounds for step in r] + list(ending), holder
    raise ValueError(f"no plan for {decisions} decisions")


@dataclass(frozen=True)
class Page:
    """One claim's page as its approver sees it."""

    decisions: int
    median_ms: float
    p95_ms: float
    statements: int
    transactions: int
    # The statements of one page load, in the order sent (their first line).
    sent: tuple[str, ...] = ()


@dataclass(frozen=True)
class Figures:
    database: str
    page: Page
    bare_median_ms: float
    bare_p95_ms: float
    scale: tuple[Page, ...]
    profile: str = ""

    @property
    def ratio(self) -> float:
        return self.page.p95_ms / self.bare_p95_ms if self.bare_p95_ms else 0.0


@dataclass(frozen=True)
class _Claim:
    decisions: int
    reference: str
    approver_email: str


def _build_claims(world: Any, sizes: list[int], progress: Callable[[str], None]) -> list[_Claim]:
    """One claim per size in ``world`` (``transitions.build_world``'s), each taken
    through its decisions by the transition service."""
    from portal.accounts import queries as account_queries
    from portal.documents import services as documents
    from portal.documents.transitions import transition_document

    admin_email = f"admin@{world.slug}.test"
    admin_user = account_queries.find_user(admin_email)
    assert admin_user is not None
    admin = account_queries.actor_for(world.slug, admin_user.id, None)
    assert admin is not None
    claims = []
    for n, size in enumerate(sizes):
        progress(f"taking a claim through {size} decisions …")
        # Requesters of one team: every claim waits on the same lead where it can.
        requester = world.requesters[n]
        deciders = {
            "requester": requester,
            "superior": world.superiors[requester.member_id],
            "head": world.heads[requester.member_id],
            "admin": admin,
        }
        doc = documents.create_document(
            requester,
            kind="expense_claim",
            title=f"Taxi fares, week {n + 1}",
            amount=Decimal("120.00"),
            description="Airport transfers for the regional meeting.",
            fields=FIELDS,
        )
        steps, holder = plan(size)
        for transition, who, state in steps:
            transition_document(
                deciders[who],
                doc.reference,
                transition,
                seen_state=state,
                comment=COMMENT if transition == "reject" else "",
            )
        approver = deciders[holder]
        email = admin_email if holder == "admin" else world.emails[approver.member_id]
        claims.append(_Claim(size, doc.reference, email))
    return claims


@contextmanager
def _counted() -> Iterator[tuple[list[str], list[int]]]:
    """The statements and the transactions the application's engine starts while the
    block runs."""
    engine = db.engine
    assert engine is not None
    sent: list[str] = []
    begun = [0]

    def statement(_conn: Any, _cursor: Any, text: str, *_rest: Any) -> None:
        sent.append(text.strip().splitlines()[0][:120])

    def begin(_conn: Any) -> None:
        begun[0] += 1

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "begin", begin)
    try:
        yield sent, begun
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(engine, "begin", begin)


def _signed_in(app: Flask, email: str) -> FlaskClient:
    """A client signed in through the login form, as a browser would be."""
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    answer = client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
    if answer.status_code != 302:
        raise RuntimeError(f"could not sign {email} in")
    return client


_BARE = """<!doctype html><html><body><ol class="timeline">
{% for h in rows %}<li><p><strong>{{ h.action }}</strong> · {{ h.source }} → {{ h.target }}</p>
<p class="muted">{{ h.when }} · {{ h.actor }} · <span>{{ h.amount }}</span></p>
{% if h.comment %}<blockquote>{{ h.comment }}</blockquote>{% endif %}
{% if h.eligible %}<p class="muted">Could decide: {{ h.eligible|join(", ") }}</p>{% endif %}
</li>{% endfor %}
</ol></body></html>"""


def bare_app(rows: int) -> Flask:
    """The floor: a Flask route rendering ``rows`` history rows from a list in memory."""
    app = Flask("bare")
    history = [
        {
            "action": "Reject" if i % 3 == 1 else "Submit",
            "source": "Pending review",
            "target": "Rejected",
            "when": "20/11/2026, 09:15",
            "actor": "Lead 0",
            "amount": "on MYR 120.00",
            "comment": COMMENT if i % 3 == 1 else "",
            "eligible": ["Lead 0"] if i % 3 == 1 else [],
        }
        for i in range(rows)
    ]

    @app.get("/history")
    def page() -> str:
        return render_template_string(_BARE, rows=history)

    return app


def _timed(client: FlaskClient, url: str) -> float:
    """One request's time in ms, in process: what the server spends on it."""
    start = time.perf_counter()
    client.get(url)
    return (time.perf_counter() - start) * 1000


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def _load(client: FlaskClient, url: str) -> None:
    answer = client.get(url)
    if answer.status_code != 200 or 'data-testid="action-' not in answer.get_data(as_text=True):
        raise RuntimeError(f"{url} did not offer its approver a decision")


def measure(
    app: Flask,
    claims: list[_Claim],
    slug: str,
    rounds: int,
    progress: Callable[[str], None],
    *,
    profile: bool = False,
) -> tuple[list[Page], list[float], str]:
    """Each claim's page for its approver and the bare route, alternating, after a
    warm-up; then one load of each page with its statements counted. Called outside any
    application context, so each request loads its user afresh, as in production."""
    if has_app_context():
        raise RuntimeError("measure() must run outside an application context")
    clients: dict[str, FlaskClient] = {}
    for claim in claims:
        if claim.approver_email not in clients:
            clients[claim.approver_email] = _signed_in(app, claim.approver_email)
    pages = [
        (clients[c.approver_email], f"/o/{slug}/documents/{c.reference}", c.decisions)
        for c in claims
    ]
    bare = bare_app(claims[0].decisions).test_client()
    for _ in range(WARM_UP):
        for client, url, _size in pages:
            _load(client, url)
        bare.get("/history")
    progress(f"timing {rounds} requests of each page, alternating …")
    samples: list[list[float]] = [[] for _ in pages]
    floor: list[float] = []
    for _ in range(rounds):
        for n, (client, url, _size) in enumerate(pages):
            samples[n].append(_timed(client, url))
        floor.append(_timed(bare, "/history"))
    out = []
    for n, (client, url, size) in enumerate(pages):
        with _counted() as (sent, begun):
            _load(client, url)
        out.append(
            Page(
                size,
                statistics.median(samples[n]),
                _p95(samples[n]),
                len(sent),
                begun[0],
                tuple(sent),
            )
        )
    shown = _profiled(*pages[0][:2], rounds) if profile else ""
    return out, floor, shown


def _profiled(client: FlaskClient, url: str, rounds: int) -> str:
    """Where a page load's time goes: ``rounds`` loads under cProfile, the top functions
    by cumulative time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        client.get(url)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
    return out.getvalue()


def bench_document(
    app: Flask,
    *,
    decisions: int = 30,
    rounds: int = 100,
    scale: bool = True,
    keep: bool = False,
    profile: bool = False,
    progress: Callable[[str], None] = print,
) -> Figures:
    """Build the organization and its claims (the main one first), time the pages,
    remove the organization unless ``keep``."""
    sizes = [decisions] + ([s for s in SCALE if s != decisions] if scale else [])
    settings = app.extensions["portal.settings"]
    progress("building a benchmark organization …")
    with app.app_context():
        world = build_world()
    slug, claims = world.slug, []
    try:
        with app.app_context():
            claims = _build_claims(world, sizes, progress)
        pages, floor, shown = measure(app, claims, slug, rounds, progress, profile=profile)
        return Figures(
            settings.database_url.split("://", 1)[0],
            pages[0],
            statistics.median(floor),
            _p95(floor),
            tuple(sorted(pages, key=lambda p: p.decisions)) if scale else (),
            shown,
        )
    finally:
        if keep:
            progress(f"kept /o/{slug}/: {', '.join(c.reference for c in claims)}")
        else:
            progress("removing the benchmark organization …")
            purge_organizations(
                settings.migrate_database_url, slug_like=slug, email_like=f"%@{slug}.test"
            )
