"""The queue path works end to end: real RQ workers on Redis, or the embedded thread."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from rq import Queue

from portal.core.health import ping
from portal.core.queue import EmbeddedWorker, ThreadWorker, redis_holder


def _wait_for(job, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh()
        if job.is_finished or job.is_failed:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job.id} still {job.get_status()} after {seconds}s")


def test_a_worker_runs_the_health_job(app):
    queue = Queue("test-health", connection=redis_holder.get())
    job = queue.enqueue(ping)
    assert job.get_status() == "queued"
    ThreadWorker([queue], connection=redis_holder.get()).work(burst=True)
    assert job.return_value() == "pong"


def test_the_embedded_worker_thread_drains_the_queue(app):
    connection = redis_holder.get()
    worker = EmbeddedWorker(connection, queues=("test-embedded",))
    worker.start()
    try:
        job = _wait_for(Queue("test-embedded", connection=connection).enqueue(ping))
        assert job.return_value() == "pong"
    finally:
        worker.stop()


@pytest.mark.postgres_only
def test_portal_worker_forks_a_real_job_process_against_redis(backend, settings, app):
    """`portal worker` as operators run it: a separate process, forking per job."""
    if not backend.postgres:
        pytest.skip("needs a real Redis shared between processes")
    queue = Queue("test-portal-worker", connection=redis_holder.get())
    job = queue.enqueue(ping)
    env = {
        **os.environ,
        "PORTAL_DATABASE_URL": backend.app_url,
        "PORTAL_REDIS_URL": backend.redis_url,
        "PORTAL_INSTANCE_DIR": str(settings.instance_dir),
        "PORTAL_SECRET_KEY": "test",
    }
    result = subprocess.run(
        [sys.executable, "-m", "portal.cli", "worker", "--queue", "test-portal-worker", "--burst"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert _wait_for(job).return_value() == "pong"
