"""The load `portal bench soak` drives: members of every organization, signed in once,
reading their inbox, opening documents, deciding (one by one and in bulk) and saving
the flow's draft, in the proportions the issue of record names, at a steady rate.

The driver stands where the reverse proxy would: it spreads requests over the two web
servers in turn, sets each request's ``X-Request-Id`` (so every decision can be found
again by the id of the request that asked for it), and, as nginx's
``proxy_next_upstream error`` does, sends a request to the other server only when the
first refused the connection — never a request that may have reached a server.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests
from urllib3.exceptions import NewConnectionError

from portal.bench.soak_world import PASSWORD, Person, SoakOrg

# Each kind of request with its share of the load, in percent.
MIX = {"inbox": 70, "document": 10, "decision": 10, "bulk": 5, "editor": 5}
BULK_SIZE = 3
TIMEOUT = 30.0
_ITEM = re.compile(r'name="items" value="([^"|]+)\|([^"]+)"')
_OUTCOME_OK = re.compile(r'class="outcome-ok" data-reference="([^"]+)"')
_CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


@dataclass(frozen=True)
class Sample:
    kind: str
    at: float  # seconds from the start of the load
    seconds: float
    status: int  # 0: no answer (the connection failed or timed out after it was made)


@dataclass(frozen=True)
class DecisionAsked:
    """A decision request: its id, and what its answer promised. ``accepted`` is how
    many decisions the answer said were made (None: no answer, or an error — the
    database alone knows), ``refused`` how many it said were not."""

    request_id: str
    org_id: int
    asked: int
    accepted: int | None
    refused: int


@dataclass
class Member:
    person: Person
    org: SoakOrg
    web: requests.Session = field(default_factory=requests.Session)
    token: str = ""
    items: list[tuple[str, str]] = field(default_factory=list)  # (reference, state)
    draft: tuple[int, dict[str, Any]] | None = None  # the admin's (revision, graph)


@dataclass
class LoadRecord:
    samples: list[Sample] = field(default_factory=list)
    decisions: list[DecisionAsked] = field(default_factory=list)
    # Inbox rows naming a document of another organization: must stay 0.
    foreign_rows: int = 0
    # Editor saves refused as stale (a save of the same admin's crossed another).
    stale_saves: int = 0


class Balancer:
    """Round robin over the web servers. As nginx does by default (``proxy_next_upstream
    error``), a request goes to the next server when the connection fails — a POST only
    when it was refused, never one that may have reached a server."""

    def __init__(self, addresses: list[str]) -> None:
        self.addresses = addresses
        self._turn = itertools.count()
        self.passed_on = 0  # requests the next server answered after one failed

    def send(
        self, web: requests.Session, method: str, path: str, **kwargs: Any
    ) -> requests.Response | None:
        first = next(self._turn)
        for attempt in range(len(self.addresses)):
            base = self.addresses[(first + attempt) % len(self.addresses)]
            if attempt:
                self.passed_on += 1
            try:
                return web.request(
                    method, base + path, timeout=TIMEOUT, allow_redirects=False, **kwargs
                )
            except requests.ConnectionError as error:
                if method in _NOT_IDEMPOTENT and not _refused(error):
                    return None  # it may have reached the server: never sent twice
            except requests.RequestException:
                return None
        return None


_NOT_IDEMPOTENT = {"POST", "PATCH"}


def _refused(error: requests.ConnectionError) -> bool:
    reason = getattr(error.args[0], "reason", None) if error.args else None
    return isinstance(reason, NewConnectionError) and "refused" in str(reason).lower()


class Load:
    """Members, signed in, and the requests they make."""

    def __init__(self, orgs: list[SoakOrg], balancer: Balancer, seed: int = 7) -> None:
        self.balancer = balancer
        self.orgs = orgs
        self.deciders = [Member(p, o) for o in orgs for p in o.deciders]
        self.readers = [Member(p, o) for o in orgs for p in o.readers]
        self.admins = [Member(o.admin, o) for o in orgs]
        self.record = LoadRecord()
        self._busy: set[int] = set()
        self._lock = threading.Lock()
        self._random = random.Random(seed)  # noqa: S311 - a load's choices, not secrets
        self._start = 0.0

    # --- before the clock -------------------------------------------------------------

    def sign_in_everyone(self, threads: int = 4) -> None:
        everyone = [*self.deciders, *self.readers, *self.admins]
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(self._sign_in, everyone))

    def _sign_in(self, member: Member) -> None:
        login = self._get(member, "/login")
        answer = self.balancer.send(
            member.web,
            "POST",
            "/login",
            data={"email": member.person.email, "password": PASSWORD, "csrf_token": _csrf(login)},
        )
        if answer is None or answer.status_code != 302:
            raise RuntimeError(f"{member.person.email} could not sign in")
        # Signing in starts a new session, and with it a new form token.
        page = self._get(member, f"/o/{member.org.slug}/inbox/")
        member.token = _csrf(page)
        member.items = _ITEM.findall(page)
        if member.person is member.org.admin:
            self._load_draft(member)

    def _get(self, member: Member, path: str) -> str:
        answer = self.balancer.send(member.web, "GET", path)
        if answer is None or answer.status_code != 200:
            raise RuntimeError(f"{path}: {answer.status_code if answer else 'no answer'}")
        return answer.text

    def _load_draft(self, member: Member) -> None:
        answer = self.balancer.send(member.web, "GET", self._draft_path(member))
        if answer is not None and answer.status_code == 200:
            body = answer.json()
            member.draft = (body["revision"], body["graph"])

    @staticmethod
    def _draft_path(member: Member) -> str:
        return f"/o/{member.org.slug}/flows/{member.org.kind}/api/draft"

    # --- the load -----------------------------------------------------------------------

    def begin(self) -> None:
        """Start the clock the samples and the faults share."""
        self._start = time.monotonic()

    def run(self, seconds: float, rate: float, threads: int) -> None:
        """``rate`` requests a second for ``seconds`` from ``begin``, by ``threads``
        threads taking the next slot of one schedule (late slots are taken at once,
        never dropped)."""
        slots = itertools.count()
        lock = threading.Lock()
        end = self._start + seconds

        def next_slot() -> float:
            with lock:
                return self._start + next(slots) / rate

        def loop() -> None:
            while (at := next_slot()) < end:
                time.sleep(max(0.0, at - time.monotonic()))
                self.one_request()

        workers = [threading.Thread(target=loop, daemon=True) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    def now(self) -> float:
        return time.monotonic() - self._start

    def one_request(self) -> None:
        kind = self._random.choices(list(MIX), weights=list(MIX.values()))[0]
        with self._taken(kind) as (member, kind):
            if member is None:
                return
            {
                "inbox": self._inbox,
                "document": self._document,
                "decision": self._decision,
                "bulk": self._bulk,
                "editor": self._editor,
            }[kind](member)

    def _choose(self, kind: str) -> tuple[Member | None, str]:
        """A member free to make a request of ``kind`` (a decision needs one with work
        waiting: with none, that member reads their inbox instead)."""
        with self._lock:
            free = [m for m in self._pool(kind) if id(m) not in self._busy]
            if kind in ("decision", "bulk", "document"):
                ready = [m for m in free if m.items or (kind == "document" and m.person.own)]
                if not ready:
                    free, kind = [m for m in self.deciders if id(m) not in self._busy], "inbox"
                else:
                    free = ready
            if not free:
                return None, kind
            member = self._random.choice(free)
            self._busy.add(id(member))
            return member, kind

    def _pool(self, kind: str) -> list[Member]:
        if kind == "editor":
            return self.admins
        if kind in ("inbox", "document"):
            return [*self.deciders, *self.readers]
        return self.deciders

    @contextlib.contextmanager
    def _taken(self, kind: str) -> Iterator[tuple[Member | None, str]]:
        member, kind = self._choose(kind)
        try:
            yield member, kind
        finally:
            if member is not None:
                with self._lock:
                    self._busy.discard(id(member))

    def _timed(
        self, kind: str, member: Member, method: str, path: str, **kwargs: Any
    ) -> tuple[requests.Response | None, str]:
        request_id = uuid.uuid4().hex
        headers = {"X-Request-Id": request_id, **kwargs.pop("headers", {})}
        at = self.now()
        started = time.perf_counter()
        answer = self.balancer.send(member.web, method, path, headers=headers, **kwargs)
        self.record.samples.append(
            Sample(kind, at, time.perf_counter() - started, answer.status_code if answer else 0)
        )
        return answer, request_id

    def _inbox(self, member: Member) -> None:
        answer, _ = self._timed("inbox", member, "GET", f"/o/{member.org.slug}/inbox/")
        if answer is not None and answer.status_code == 200:
            member.items = _ITEM.findall(answer.text)
            foreign = [r for r, _ in member.items if r not in member.org.references]
            self.record.foreign_rows += len(foreign)

    def _document(self, member: Member) -> None:
        pool = [r for r, _ in member.items] or list(member.person.own)
        reference = self._random.choice(pool)
        self._timed("document", member, "GET", f"/o/{member.org.slug}/documents/{reference}")

    def _decision(self, member: Member) -> None:
        reference, state = member.items.pop(0)
        kept = member.web.cookies.copy()  # as a browser's, once the redirect's page is read
        answer, request_id = self._timed(
            "decision",
            member,
            "POST",
            f"/o/{member.org.slug}/documents/{reference}/transition",
            data={"transition": "approve", "seen_state": state, "csrf_token": member.token},
        )
        member.web.cookies = kept
        self._asked(request_id, member, answer, lambda a: 1 if a.status_code == 302 else 0, 1)

    def _bulk(self, member: Member) -> None:
        chosen, member.items = member.items[:BULK_SIZE], member.items[BULK_SIZE:]
        answer, request_id = self._timed(
            "bulk",
            member,
            "POST",
            f"/o/{member.org.slug}/inbox/bulk",
            data={
                "transition": "approve",
                "items": [f"{r}|{s}" for r, s in chosen],
                "comment": "",
                "csrf_token": member.token,
            },
        )

        def accepted(a: requests.Response) -> int:
            return len(_OUTCOME_OK.findall(a.text)) if a.status_code == 200 else 0

        self._asked(request_id, member, answer, accepted, len(chosen))

    def _asked(
        self,
        request_id: str,
        member: Member,
        answer: requests.Response | None,
        accepted: Callable[[requests.Response], int],
        asked: int,
    ) -> None:
        if answer is None or answer.status_code >= 500:
            made: int | None = None
        else:
            made = accepted(answer)
        refused = 0 if made is None else asked - made
        self.record.decisions.append(
            DecisionAsked(request_id, member.org.org_id, asked, made, refused)
        )

    def _editor(self, member: Member) -> None:
        if member.draft is None:
            self._load_draft(member)
            return
        revision, graph = member.draft
        state = graph["states"][0]
        state["x"] = state["x"] + (1 if self._random.random() < 0.5 else -1)
        answer, _ = self._timed(
            "editor",
            member,
            "PUT",
            self._draft_path(member),
            json={"revision": revision, "graph": graph},
            headers={"X-CSRFToken": member.token},
        )
        if answer is not None and answer.status_code == 200:
            member.draft = (answer.json()["revision"], graph)
        else:
            if answer is not None and answer.status_code == 409:
                self.record.stale_saves += 1
            member.draft = None  # read again before the next save


def _csrf(page: str) -> str:
    found = _CSRF.search(page)
    if found is None:
        raise RuntimeError("no form token on the page")
    return found.group(1)
