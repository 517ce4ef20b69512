"""Redis and RQ: a real server in production, an in-process fake in embedded mode.

In embedded mode the queue lives on a fakeredis server shared by the whole process,
and ``EmbeddedWorker`` drains it from a daemon thread of the web process.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import fakeredis
from redis import Redis
from rq import Queue, SimpleWorker
from rq.timeouts import TimerDeathPenalty

DEFAULT_QUEUE = "default"
# The deadline sweep's per-organization jobs, apart from the outbox's deliveries (which
# the sweep itself causes by the thousand): a worker of its own keeps deadlines on time
# whatever mail is waiting. Run `portal worker --queue sweep` beside the default one.
SWEEP_QUEUE = "sweep"
QUEUES = (DEFAULT_QUEUE, SWEEP_QUEUE)
log = logging.getLogger(__name__)


class RedisHolder:
    def __init__(self) -> None:
        self.connection: Redis | None = None
        self.embedded = False

    def configure(self, url: str) -> None:
        if url:
            self.connection = Redis.from_url(url)
            self.embedded = False
        else:
            self.connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
            self.embedded = True

    def get(self) -> Redis:
        if self.connection is None:
            raise RuntimeError("Redis is not configured; call create_app() first")
        return self.connection


redis_holder = RedisHolder()


def get_queue(name: str = DEFAULT_QUEUE) -> Queue:
    return Queue(name, connection=redis_holder.get())


def enqueue(
    func: Callable[..., Any] | str, *args: Any, queue_name: str = DEFAULT_QUEUE, **kwargs: Any
) -> Any:
    """Queue ``func`` (or its dotted path, so a service need not import its job) on
    ``queue_name``."""
    queue = get_queue(queue_name)
    # One call for each, so RQ's typing sees a function or a path, never the union.
    if isinstance(func, str):
        return queue.enqueue(func, *args, **kwargs)
    return queue.enqueue(func, *args, **kwargs)


class ThreadWorker(SimpleWorker):
    """A non-forking worker that can run off the main thread.

    Signals belong to the main thread, so it installs no handlers and times jobs out
    with a timer instead of SIGALRM.
    """

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        return None


class EmbeddedWorker:
    """Runs a ThreadWorker over the embedded queue in a daemon thread."""

    def __init__(self, connection: Redis, queues: tuple[str, ...] = QUEUES) -> None:
        self.connection = connection
        self.queues = queues
        self._thread: threading.Thread | None = None
        self._worker: ThreadWorker | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._worker = ThreadWorker(
            [Queue(q, connection=self.connection) for q in self.queues],
            connection=self.connection,
        )
        self._thread = threading.Thread(
            target=self._run, name="portal-embedded-worker", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        assert self._worker is not None
        self._worker.work(logging_level="WARNING")

    def stop(self, timeout: float = 1.0) -> None:
        """Finish the current job, then leave the loop (checked between dequeues)."""
        if self._worker is None or self._thread is None:
            return
        self._worker._stop_requested = True
        self._thread.join(timeout)
