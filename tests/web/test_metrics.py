"""``/metrics`` for Prometheus: request latency by route (the rule, never the path),
decisions, the queues, the outbox's backlog and the sweep's lag measured by a worker, the
pool in use — and nothing at all for anyone without the scraper's token."""

from __future__ import annotations

from decimal import Decimal

import pytest
from prometheus_client.parser import text_string_to_metric_families

from portal.core import metrics
from portal.documents import services as documents
from portal.documents import transitions
from tests.factories import demo_browser

TOKEN = "scraper-token-0123456789abcdef"


@pytest.fixture
def scraper(app, client, monkeypatch):
    settings = app.extensions["portal.settings"]
    monkeypatch.setitem(app.extensions, "portal.settings", settings.with_(metrics_token=TOKEN))

    def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        answer = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200
        assert answer.headers["Cache-Control"] == "no-store"
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(answer.get_data(as_text=True))
            for s in family.samples
        }

    return scrape


def _inbox_count(figures) -> float:
    key = (
        "countersign_request_seconds_count",
        (("method", "GET"), ("route", "/o/<org>/inbox/"), ("status", "2xx")),
    )
    return figures.get(key, 0.0)


def test_the_scraper_reads_requests_by_route_decisions_and_the_background(app, people, scraper):
    before = scraper()
    nurul, _token = demo_browser(app, "nurul")
    for _ in range(3):
        assert nurul.get("/o/acme/inbox/").status_code == 200
    siti = people("siti")
    doc = documents.create_document(
        siti,
        kind="expense_claim",
        title="Taxi",
        amount=Decimal("42.00"),
        fields={"category": "travel", "expense_date": "2026-11-20"},
    )
    transitions.transition_document(siti, doc.reference, "submit", seen_state="draft")
    measured = metrics.measure_background()

    after = scraper()

    assert _inbox_count(after) - _inbox_count(before) == 3
    # Two organizations' inboxes are one series: the rule, not the path.
    assert not [name for name, labels in after if ("route", "/o/acme/inbox/") in labels]
    decided = ("countersign_decisions_total", ())
    assert after[decided] - before.get(decided, 0.0) == 1
    assert ("countersign_queue_jobs", (("queue", "default"),)) in after
    assert ("countersign_queue_jobs", (("queue", "sweep"),)) in after
    waiting = measured["outbox_undelivered"]
    assert waiting is not None and after[("countersign_outbox_undelivered", ())] == waiting >= 0
    assert after[("countersign_outbox_dead", ())] == measured["outbox_dead"]
    assert after[("countersign_outbox_oldest_undelivered_seconds", ())] >= 0
    assert ("countersign_db_pool_checked_out", ()) in after


def test_the_worker_measures_every_organizations_backlog_and_the_sweeps_lag(app, people, globex):
    from datetime import timedelta

    from portal.core.clock import clock
    from portal.core.outbox import OutboxEvent
    from portal.core.uow import unit_of_work

    first = metrics.measure_background()
    clock.freeze(clock.now())
    for org_id, age in ((people("siti").org_id, 90), (globex.org.id, 30)):
        with unit_of_work(org_id) as uow:
            uow.session.add(
                OutboxEvent(
                    org_id=org_id,
                    topic="notify.test",
                    payload={},
                    created_at=clock.now() - timedelta(seconds=age),
                    next_attempt_at=clock.now(),
                    attempts=0,
                )
            )

    second = metrics.measure_background()

    before, now, oldest = (
        first["outbox_undelivered"],
        second["outbox_undelivered"],
        second["outbox_oldest_undelivered_seconds"],
    )
    assert before is not None and now is not None and oldest is not None
    assert now == before + 2  # both tenants' rows
    assert oldest >= 90


def test_without_the_token_metrics_is_not_there(app, client, scraper):
    assert scraper()  # the scraper's token opens it
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token-0123456789abcdef"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Bearer {TOKEN}\x00"},
        {"Authorization": "Bearer " + "9" * 5000},
    ):
        answer = client.get("/metrics", headers=headers)
        assert answer.status_code == 404, headers
        assert "countersign_" not in answer.get_data(as_text=True)


def test_with_no_token_configured_metrics_is_off(client):
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 404
