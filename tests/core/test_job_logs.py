"""A job's log lines carry its id, in a real `portal worker` process with the JSON
format production uses — for a line the job writes and for the error that ends it."""

from __future__ import annotations

import json
import logging

import pytest
from rq import Queue

from portal.bench.worker_processes import WorkerProcesses, worker_environment
from portal.core.queue import redis_holder


def log_inside_a_job() -> None:
    logging.getLogger("portal.test").warning("written inside the job")


def fail_inside_a_job() -> None:
    raise RuntimeError("the job failed on purpose")


def test_a_worker_process_logs_each_jobs_lines_with_its_id(backend, settings, committed, tmp_path):
    if not backend.postgres:
        pytest.skip("worker processes need a Redis shared between processes")
    queue = Queue("job-logs", connection=redis_holder.get())
    written = queue.enqueue(f"{__name__}.log_inside_a_job")
    failed = queue.enqueue(f"{__name__}.fail_inside_a_job")
    env = worker_environment(settings, tmp_path / "instance", {"PORTAL_LOG_FORMAT": "json"})
    workers = WorkerProcesses(
        1, queue="job-logs", connection=queue.connection, env=env, log_dir=tmp_path, burst=True
    )
    with workers:
        assert workers.wait() == [0]

    lines = [
        json.loads(line)
        for line in (tmp_path / "worker-0.log").read_text().splitlines()
        if line.startswith("{")
    ]
    mine = [line for line in lines if line["message"] == "written inside the job"]
    assert [line.get("job_id") for line in mine] == [written.id]
    # RQ writes the traceback into its line's message.
    errors = [line for line in lines if "the job failed on purpose" in line["message"]]
    assert errors and {line.get("job_id") for line in errors} == {failed.id}
    # The worker's own lines between jobs name no job.
    assert any(line.get("job_id") is None for line in lines)
