"""The faults `portal bench soak` injects while the load runs, each at its planned share
of the run: a worker SIGKILLed mid-job and restarted, a web server restarted, Redis
stopped (and back empty: it keeps nothing on disk), and one PostgreSQL connection of
the application terminated.

Each fault's window runs from its start until the system is whole again, plus a grace
of ``GRACE`` seconds for its after-effects (a request that was already waiting on the
stopped server); errors inside a window are the fault's, outside they are the product's.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import create_engine, make_url, pool, text

from portal.bench.soak_processes import Service, Topology

GRACE = 10.0
# Each fault at its share of the run.
PLAN = (
    ("worker killed", 0.15),
    ("web restarted", 0.35),
    ("redis stopped", 0.55),
    ("connection terminated", 0.8),
)


@dataclass(frozen=True)
class Fault:
    name: str
    start: float  # seconds from the start of the load
    end: float  # when the system was whole again
    detail: str

    def covers(self, at: float) -> bool:
        return self.start <= at <= self.end + GRACE


class Faults:
    """Injects the plan's faults on a clock shared with the load, in a thread."""

    def __init__(
        self,
        topology: Topology,
        *,
        app_url: str,
        duration: float,
        redis_outage: float,
        clock: Callable[[], float],
    ) -> None:
        self.topology = topology
        self.app_url = app_url
        self.app_role = make_url(app_url).username or ""
        self.duration = duration
        self.redis_outage = redis_outage
        self.clock = clock
        self.injected: list[Fault] = []
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._thread.join()

    def _run(self) -> None:
        actions = {
            "worker killed": self._kill_worker,
            "web restarted": self._restart_web,
            "redis stopped": self._stop_redis,
            "connection terminated": self._terminate_connection,
        }
        for name, share in PLAN:
            time.sleep(max(0.0, share * self.duration - self.clock()))
            start = self.clock()
            try:
                detail = actions[name]()
            except Exception as error:  # a fault that could not be injected is reported
                self.errors.append(f"{name}: {error}")
                continue
            self.injected.append(Fault(name, start, self.clock(), detail))

    @contextlib.contextmanager
    def _down(self, name: str) -> Iterator[Service]:
        """The service, left alone by the supervisor while the fault has it down."""
        service = self.topology.services[name]
        service.held = True
        try:
            yield service
        finally:
            service.held = False

    def _kill_worker(self) -> str:
        """SIGKILL worker-0 and its job process; back two seconds later."""
        with self._down("worker-0") as service:
            service.kill()
            time.sleep(2)
            service.start()
        return "worker-0 and its job process SIGKILLed, started again 2 s later"

    def _restart_web(self) -> str:
        """SIGTERM web-1 (requests under way finish), start it again, wait until it answers."""
        with self._down("web-1") as service:
            service.stop()
            service.start()
            self.topology.wait_for_web(1)
        return "web-1 stopped (SIGTERM, graceful) and started again"

    def _stop_redis(self) -> str:
        with self._down("redis") as service:
            service.stop()
            time.sleep(self.redis_outage)
            service.start()
            self.topology.wait_for_redis()
        return f"redis-server stopped for {self.redis_outage:.0f} s, started again empty"

    def _terminate_connection(self) -> str:
        """``pg_terminate_backend`` on one of the application role's connections, by a
        connection of that role (a role may end its own sessions; it needs no more)."""
        engine = create_engine(self.app_url, poolclass=pool.NullPool)
        try:
            with engine.begin() as conn:
                row = conn.execute(
                    text(
                        "SELECT pid, state, pg_terminate_backend(pid) FROM pg_stat_activity"
                        " WHERE datname = current_database() AND usename = :role"
                        " AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1"
                    ),
                    {"role": self.app_role},
                ).one_or_none()
        finally:
            engine.dispose()
        if row is None:
            raise RuntimeError(f"no connection of {self.app_role!r} to terminate")
        return f"backend {row.pid} of {self.app_role} terminated (it was {row.state})"
