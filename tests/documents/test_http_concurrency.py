"""Fifty people pressing "Approve" on the same document at the same moment, for two
hundred documents, through the real pages served by two gunicorn workers: each
document moves exactly once, every other press is told the document moved on, nothing
answers 500, and every hash chain still verifies."""

from __future__ import annotations

import collections
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from sqlalchemy import create_engine, text

from portal.audit.services.verification import verify_organization
from portal.bench.cleanup import purge_organizations
from portal.bench.decision_world import AMOUNT, build_decision_world
from portal.bench.decisions import THREE_STEP, start_gunicorn, stop_gunicorn
from portal.documents import services as documents
from portal.documents.transitions import transition_document
from portal.domain.actor import SystemActor

DOCUMENTS = 200
PRESSES = 50


def _signed_in(base: str, email: str, password: str) -> tuple[dict[str, str], str]:
    """The decider's session cookie and form token, as a browser would hold them."""
    web = requests.Session()
    token = _csrf(web.get(f"{base}/login", timeout=30).text)
    answer = web.post(
        f"{base}/login",
        data={"email": email, "password": password, "csrf_token": token},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 302, answer.status_code
    page = web.get(f"{base}/", timeout=30)
    assert page.status_code == 200
    return {c.name: c.value or "" for c in web.cookies}, _csrf(page.text)


def _csrf(page: str) -> str:
    return page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]


def test_fifty_simultaneous_approvals_of_each_document_move_it_exactly_once(
    backend, settings, committed, tmp_path
):
    if not backend.postgres:
        pytest.skip("two gunicorn workers share one database: PostgreSQL")
    world = build_decision_world()
    server = None
    try:
        transition, seen, role = THREE_STEP.steps[1]  # the manager's approval
        made = []
        for i in range(DOCUMENTS):
            requester = world.requesters[i % len(world.requesters)]
            doc = documents.create_document(
                requester,
                kind=THREE_STEP.kind,
                title=f"Contended {i}",
                amount=AMOUNT,
                fields=dict(THREE_STEP.fields),
            )
            submit, at, _ = THREE_STEP.steps[0]
            transition_document(requester, doc.reference, submit, seen_state=at)
            made.append((doc.reference, world.decider(role, requester)))
        server, base = start_gunicorn(settings.with_(instance_dir=tmp_path))
        sessions = {
            actor.member_id: _signed_in(base, world.emails[actor.member_id], world.password)
            for _, actor in made
        }

        answers: dict[str, list[int]] = collections.defaultdict(list)
        lock = threading.Lock()

        def press(reference: str, member_id: int, start: threading.Barrier) -> None:
            cookies, token = sessions[member_id]
            start.wait()  # all fifty at once
            answer = requests.post(
                f"{base}/o/{world.slug}/documents/{reference}/transition",
                data={"transition": transition, "seen_state": seen, "csrf_token": token},
                cookies=cookies,
                allow_redirects=False,
                timeout=120,
            )
            with lock:
                answers[reference].append(answer.status_code)

        with ThreadPoolExecutor(max_workers=PRESSES) as pool:
            for reference, actor in made:
                start = threading.Barrier(PRESSES)
                pressed = [
                    pool.submit(press, reference, actor.member_id, start) for _ in range(PRESSES)
                ]
                for future in pressed:
                    future.result()

        statuses = collections.Counter(s for codes in answers.values() for s in codes)
        assert sum(statuses.values()) == DOCUMENTS * PRESSES
        assert not [s for s in statuses if s >= 500], statuses
        for reference, codes in answers.items():
            # One press moved it (the redirect to its page); every other was shown the
            # page as it stands, told it had moved on.
            assert sorted(codes) == [302] + [409] * (PRESSES - 1), (reference, codes)

        owner = create_engine(backend.owner_url)
        try:
            with owner.connect() as conn:
                # Row-level security holds the owner too: name the organization.
                conn.execute(
                    text("SELECT set_config('app.current_org', :org, false)"),
                    {"org": str(world.org_id)},
                )
                per_document = conn.execute(
                    text(
                        "SELECT d.reference, d.state,"
                        " (SELECT count(*) FROM decision x WHERE x.document_id = d.id),"
                        " (SELECT count(*) FROM decision x WHERE x.document_id = d.id"
                        "  AND x.transition = :t),"
                        " (SELECT count(*) FROM task t WHERE t.document_id = d.id"
                        "  AND t.status = 'open' AND t.state <> d.state)"
                        " FROM document d WHERE d.org_id = :org AND d.title LIKE 'Contended %'"
                    ),
                    {"t": transition, "org": world.org_id},
                ).all()
        finally:
            owner.dispose()
        assert len(per_document) == DOCUMENTS
        next_state = THREE_STEP.steps[2][1]
        assert {row[1] for row in per_document} == {next_state}
        # The submission and one approval each: none lost, none doubled; and no open
        # task left on a state the document has left.
        assert {tuple(row[2:]) for row in per_document} == {(2, 1, 0)}

        summary = verify_organization(SystemActor(org_id=world.org_id, org_slug=world.slug), "cli")
        assert summary.failures == []
        assert summary.chains >= DOCUMENTS
    finally:
        if server is not None:
            stop_gunicorn(server)
        purge_organizations(
            backend.owner_url, slug_like=world.slug, email_like=f"%@{world.slug}.test"
        )
