"""`portal worker` rides out Redis going away: it waits for Redis before it starts and
starts a new worker when RQ gives up under a job, instead of exiting into the service
manager's restart loop (the soak's Redis outage showed the loop)."""

from __future__ import annotations

import logging

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from portal.core.queue import redis_holder
from portal.core.worker import work_through_outages


class _Worker:
    """Stands in for an RQ worker: its work() fails as RQ's does when Redis is lost
    under a job, the first ``failures`` times, then returns (stopped)."""

    made = 0

    def __init__(self, failures: int) -> None:
        self.failures = failures

    def __call__(self) -> _Worker:
        _Worker.made += 1
        return self

    def work(self, *, burst: bool, logging_level: str) -> None:
        if self.failures:
            self.failures -= 1
            raise RedisConnectionError("Connection closed by server.")


class _Away:
    """A Redis that answers only from its ``answers_from``-th ping on (outside the
    product: the real one is stopped and started in `portal bench soak`)."""

    def __init__(self, answers_from: int) -> None:
        self.pings = 0
        self.answers_from = answers_from

    def ping(self) -> bool:
        self.pings += 1
        if self.pings < self.answers_from:
            raise RedisConnectionError("Error 111 connecting. Connection refused.")
        return True


def test_a_worker_stopped_normally_is_not_started_again(app):
    _Worker.made = 0
    work_through_outages(_Worker(0), redis_holder.get(), pause=lambda _s: None)
    assert _Worker.made == 1


def test_a_worker_that_lost_redis_starts_again_once_redis_is_back(app, caplog):
    _Worker.made = 0
    away = _Away(answers_from=3)
    waits: list[float] = []
    with caplog.at_level(logging.WARNING, logger="portal.core.worker"):
        work_through_outages(_Worker(1), away, pause=waits.append)  # type: ignore[arg-type]

    assert _Worker.made == 2
    assert waits == [0.5, 1.0]  # before the first start, Redis was away twice
    assert "waiting for Redis" in caplog.text
    assert "lost Redis" in caplog.text


def test_anything_but_redis_going_away_still_ends_the_worker(app):
    class Broken(_Worker):
        def work(self, *, burst: bool, logging_level: str) -> None:
            raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        work_through_outages(Broken(0), redis_holder.get(), pause=lambda _s: None)
