"""Playing ``stories`` into ``acme``: every document created, edited and decided through
the real services, as the right people, at the moment the story says — so the history
an auditor reads, its hash chains, tasks, deadlines and notices are the ones real use
would have left.

The clock is moved back for it (``moved_back``) and put back afterwards, whatever
happens. Every step of every story runs in the order of its moment, so references are
numbered in the order documents were created, as they would have been.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, TypeVar

from rq.suspension import resume, suspend
from sqlalchemy.exc import OperationalError

from portal.accounts import queries as account_queries
from portal.core.clock import clock
from portal.core.health import ping
from portal.core.queue import enqueue, redis_holder
from portal.demo.stories import STORIES, Story
from portal.documents import services as documents
from portal.documents.access import DocumentView
from portal.documents.transitions import transition_document
from portal.domain.actor import Actor

# The organization is set up this long before the moment of seeding: before the first
# story, so every seat is held on the day its first document is routed.
SET_UP_DAYS_BEFORE = 75
# Nothing is decided in the last few minutes: a newcomer sees the past, not a race.
_NOT_AFTER = timedelta(minutes=10)

# Whom a requester's documents go to in the seeded chart (DESIGN §9 flows, demo chart).
_REVIEWER = {"siti": "nurul", "jason": "nurul", "hannah": "grace"}
_APPROVER = {"siti": "zainal", "jason": "zainal", "hannah": "aisha"}
_SUPERIOR = {**_REVIEWER, "priya": "farid", "weijie": "farid"}
# Admins who commit, pay and settle disputes: never one who already decided a step of
# the claim (exclusive approval), so Hannah's claims (Grace and Aisha reviewed and
# approved them) go to Finance alone.
_FINANCE = {
    "hannah": ("daniel", "meiling"),
    "sales": ("daniel", "meiling", "grace", "aisha"),
}
_SUPPLIERS = {
    "goods": "Harvey Industrial Supplies Sdn Bhd",
    "software": "Kiara Software Sdn Bhd",
    "services": "Klang Valley Forklift Services",
}


_T = TypeVar("_T")


def _again_if_locked(call: Callable[[], _T]) -> _T:
    """``call()``, tried again while SQLite says the database is locked: ``portal demo``
    seeds with its embedded worker already delivering the notices of the steps before,
    and two SQLite writers that both began by reading can only give way. Each step is
    one unit of work, rolled back whole before it is tried again."""
    for attempt in range(30):
        try:
            return call()
        except OperationalError as error:
            if "locked" not in str(error) or attempt == 29:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover


@contextmanager
def worker_paused() -> Iterator[None]:
    """Hold the embedded worker (``portal demo`` starts one in the process) while the
    stories are played: on SQLite its deliveries of each step's notices would contend
    with the next step for the one writer's lock. The notices wait in the outbox and go
    out when it resumes. A real Redis's workers are not touched."""
    if not redis_holder.embedded:
        yield
        return
    connection = redis_holder.get()
    suspend(connection)
    # A worker already waiting for a job looks at the suspension only after its next
    # one: give it a harmless one (it reads, never writes).
    enqueue(ping)
    try:
        yield
    finally:
        resume(connection)


@contextmanager
def moved_back(days: float) -> Iterator[datetime]:
    """Freeze the clock ``days`` before now for the block; yields the present, and puts
    the clock back as it was afterwards (running, or frozen where it stood)."""
    before = clock.frozen_at
    now = clock.now()
    clock.freeze(now - timedelta(days=days))
    try:
        yield now
    finally:
        if before is None:
            clock.unfreeze()
        else:
            clock.freeze(before)


@dataclass(frozen=True)
class _Event:
    at: datetime
    story: int
    step: int  # -1: the document is created


def _events(now: datetime) -> list[_Event]:
    """Every step of every story that falls before ``now``, in the order they happened."""
    events = []
    for n, story in enumerate(STORIES):
        at = now - timedelta(days=story.days_ago)
        if at > now - _NOT_AFTER:
            continue
        events.append(_Event(at, n, -1))
        for i, (_who, _key, hours, _comment) in enumerate(story.path):
            at += timedelta(hours=hours)
            if at > now - _NOT_AFTER:
                break
            events.append(_Event(at, n, i))
    return sorted(events, key=lambda e: (e.at, e.story, e.step))


def _people(slug: str) -> Callable[[str], Actor]:
    cache: dict[str, Actor] = {}

    def person(name: str) -> Actor:
        if name not in cache:
            user = account_queries.find_user(f"{name}@{slug}.example")
            actor = account_queries.actor_for(slug, user.id, None) if user else None
            if actor is None:  # pragma: no cover - the demo's own people
                raise LookupError(f"no demo member {name}")
            cache[name] = actor
        return cache[name]

    return person


def _who(story: Story, n: int, role: str) -> str:
    """The person behind a role of the story, in the seeded chart."""
    if role in {"req", "edit"}:
        return story.requester
    if story.kind != "expense_claim":
        return _SUPERIOR[story.requester]
    if role == "rev":
        return _REVIEWER[story.requester]
    if role == "app":
        return _APPROVER[story.requester]
    pool = _FINANCE["hannah" if story.requester == "hannah" else "sales"]
    # Each claim's admins in turn, so every one of them has decisions to show.
    first = n % len(pool)
    return pool[(first + {"fin1": 0, "fin2": 1, "fin3": 2}[role]) % len(pool)]


def _fields(story: Story, n: int, at: datetime) -> dict[str, Any]:
    day = at.date()
    if story.kind == "expense_claim":
        spent = day - timedelta(days=1 + n % 4)
        return {
            "category": story.category,
            "expense_date": spent.isoformat(),
            "receipt_number": f"R-{4100 + 7 * n}",
        }
    if story.kind == "purchase_request":
        needed = day + timedelta(days=21)
        return {
            "supplier": _SUPPLIERS[story.category],
            "category": story.category,
            "needed_by": needed.isoformat(),
        }
    first = day + timedelta(days=10 + n % 5)
    return {
        "leave_type": story.category,
        "first_day": first.isoformat(),
        "last_day": (first + timedelta(days=n % 3)).isoformat(),
    }


def _request_id(n: int, step: int) -> str:
    """An id like the server's (32 hex digits), the same on every seeding."""
    return hashlib.sha256(f"demo:{n}:{step}".encode()).hexdigest()[:32]


def _take(
    story: Story, event: _Event, doc: DocumentView | None, person: Callable[[str], Actor]
) -> DocumentView:
    """One step of a story: the document created, edited or moved on."""
    if doc is None:
        return documents.create_document(
            person(story.requester),
            kind=story.kind,
            title=story.title,
            amount=story.amount,
            description="",
            fields=_fields(story, event.story, event.at),
        )
    role, key, _hours, comment = story.path[event.step]
    actor = person(_who(story, event.story, role))
    request_id = _request_id(event.story, event.step)
    if role == "edit":
        return documents.update_document(
            actor, doc.reference, description=comment, request_id=request_id
        )
    return transition_document(
        actor, doc.reference, key, seen_state=doc.state, comment=comment, request_id=request_id
    ).document


def play_stories(slug: str, now: datetime) -> int:
    """Play every story into the organization at ``slug`` up to ``now``; returns how
    many documents were created. The clock is left frozen: the caller puts it back."""
    person = _people(slug)
    docs: dict[int, DocumentView] = {}
    for event in _events(now):
        clock.freeze(event.at)
        story = STORIES[event.story]
        step = partial(_take, story, event, docs.get(event.story), person)
        docs[event.story] = _again_if_locked(step)
    return len(docs)
