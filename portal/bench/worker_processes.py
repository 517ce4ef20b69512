"""Real ``portal worker`` processes for the benchmarks and the fault tests, started as an
operator starts them. A kill reaches the forked job process too: a worker killed alone
leaves its job's process running (RQ detaches it into a process group of its own)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from redis import Redis
from rq import Queue, Worker

from portal.config import Settings


def worker_environment(
    settings: Settings, instance_dir: Path, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a worker of this portal needs: its database, Redis and mail."""
    env = {
        **os.environ,
        "PORTAL_DATABASE_URL": settings.database_url,
        "PORTAL_MIGRATE_DATABASE_URL": settings.migrate_database_url,
        "PORTAL_REDIS_URL": settings.redis_url,
        "PORTAL_INSTANCE_DIR": str(instance_dir),
        "PORTAL_SECRET_KEY": settings.secret_key or "worker-process-secret-key-for-tests-only",
        "PORTAL_BASE_URL": settings.base_url,
        "PORTAL_SMTP_HOST": settings.smtp_host,
        "PORTAL_SMTP_PORT": str(settings.smtp_port),
        "PORTAL_SMTP_SECURITY": settings.smtp_security,
        "PORTAL_MAIL_SENDER": settings.mail_sender,
    }
    env.pop("PORTAL_CLOCK_FILE", None)  # a frozen clock does not cross processes
    env.update(extra or {})
    return env


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            # The command name (in parentheses) may hold spaces: the parent follows it.
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found


class WorkerProcesses:
    """``count`` workers serving ``queue``, stopped (then killed) on leaving the block."""

    def __init__(
        self,
        count: int,
        *,
        queue: str,
        connection: Redis,
        env: Mapping[str, str],
        log_dir: Path,
        burst: bool = False,
    ) -> None:
        self.count = count
        self.queue = queue
        self.connection = connection
        self.env = dict(env)
        self.log_dir = log_dir
        self.burst = burst
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, count: int | None = None) -> WorkerProcesses:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for _ in range(self.count if count is None else count):
            n = len(self.processes)
            command = [sys.executable, "-m", "portal.cli", "worker", "--queue", self.queue]
            with (self.log_dir / f"worker-{n}.log").open("wb") as log:
                self.processes.append(
                    subprocess.Popen(  # noqa: S603 - our own interpreter and module
                        [*command, *(["--burst"] if self.burst else [])],
                        env=self.env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        return self

    def __enter__(self) -> WorkerProcesses:
        return self.start()

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self.stop()

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until every live worker has registered on the queue (the app is loaded)."""
        queue = Queue(self.queue, connection=self.connection)
        deadline = time.monotonic() + timeout
        alive = [p for p in self.processes if p.poll() is None]
        # By process id: a killed worker stays registered until its key expires.
        while {p.pid for p in alive} - {w.pid for w in Worker.all(queue=queue)}:
            if time.monotonic() > deadline:
                raise RuntimeError(f"workers did not start within {timeout} s: {self.logs()}")
            if any(p.poll() is not None for p in alive):
                raise RuntimeError(f"a worker exited at start: {self.logs()}")
            time.sleep(0.1)

    def kill(self, index: int) -> None:
        """SIGKILL a worker and the job process it forked: a crash, mid-job. RQ puts
        the job process in a process group of its own, so it is found by parent."""
        process = self.processes[index]
        for pid in [*_children(process.pid), process.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self, timeout: float = 15.0) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)  # RQ's warm shutdown: finish the job
        deadline = time.monotonic() + timeout
        for process in self.processes:
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)

    def wait(self, timeout: float = 120.0) -> list[int]:
        """The exit codes of burst workers, once they have drained the queue."""
        return [p.wait(timeout=timeout) for p in self.processes]

    def live_pids(self) -> set[int]:
        return {p.pid for p in self.processes if p.poll() is None}

    def logs(self) -> str:
        return "\n".join(
            f"--- worker {n}:\n{(self.log_dir / f'worker-{n}.log').read_text(errors='replace')[-3000:]}"
            for n in range(len(self.processes))
            if (self.log_dir / f"worker-{n}.log").exists()
        )
