"""The topology `portal bench soak` runs, as processes on loopback: the compose file's
services without containers — a Redis of its own (so that stopping it touches nothing
else on the machine), two gunicorn servers with the shipped settings, two workers on the
default queue and one on the sweep queue, and the scheduler — plus an SMTP server that
records every message it accepts.

A supervisor restarts any of them that exits when it was not meant to, as systemd's
``Restart=always`` or compose's ``restart: unless-stopped`` would, and remembers it: a
restart nobody planned is part of what the soak reports.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

import requests
from aiosmtpd.controller import Controller
from redis import Redis

from portal.bench.worker_processes import free_port, worker_environment
from portal.config import Settings

# What systemd does before it starts a socket-activated service: the socket as fd 3,
# LISTEN_FDS and LISTEN_PID (this very process: exec keeps it) in the environment.
_HAND_OVER = (
    "import os, sys; os.dup2({fd}, 3); os.environ['LISTEN_FDS'] = '1';"
    " os.environ['LISTEN_PID'] = str(os.getpid());"
    " os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


class RecordingSmtp:
    """An aiosmtpd handler that keeps each accepted message's Message-ID and recipients."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.received: collections.Counter[tuple[str, str]] = collections.Counter()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's hook name
        headers = BytesHeaderParser().parsebytes(envelope.content)
        message_id = str(headers.get("Message-ID", "")).strip()
        with self._lock:
            for recipient in envelope.rcpt_tos:
                self.received[(message_id, recipient.lower())] += 1
        return "250 Message accepted"


@dataclass
class Service:
    """One process of the topology, in a session of its own (a kill takes its children)."""

    name: str
    command: list[str]
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    # Down on purpose: the supervisor leaves it alone.
    held: bool = False
    pass_fds: tuple[int, ...] = ()

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and redis-server
                self.command,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=self.pass_fds,
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 40.0) -> None:
        """SIGTERM (a warm shutdown: requests and jobs under way finish), then SIGKILL."""
        if not self.alive():
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL the process and everything it forked: a crash, mid-request or mid-job."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@dataclass
class Topology:
    settings: Settings
    directory: Path
    smtp: RecordingSmtp = field(default_factory=RecordingSmtp)
    services: dict[str, Service] = field(default_factory=dict)
    web_addresses: list[str] = field(default_factory=list)
    unplanned_restarts: list[tuple[float, str]] = field(default_factory=list)
    _smtp_server: Controller | None = None
    _redis_port: int = 0
    _listeners: list[socket.socket] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _supervisor: threading.Thread | None = None
    _started: float = 0.0

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self._redis_port}/0"

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        smtp_port = free_port()
        logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd: a line a command
        self._smtp_server = Controller(self.smtp, hostname="127.0.0.1", port=smtp_port)
        self._smtp_server.start()
        self._redis_port = free_port()
        instance = self.directory / "instance"
        env = worker_environment(
            self.settings,
            instance,
            {
                "PORTAL_REDIS_URL": self.redis_url,
                "PORTAL_SMTP_HOST": "127.0.0.1",
                "PORTAL_SMTP_PORT": str(smtp_port),
                "PORTAL_SMTP_SECURITY": "none",
                "PORTAL_EMBEDDED_WORKER": "0",
                # The load balancer in front sets X-Request-Id, as nginx does.
                "PORTAL_TRUSTED_PROXIES": "1",
                "PORTAL_LOG_FORMAT": "json",
            },
        )
        self._add(
            "redis",
            [
                "redis-server",
                *("--port", str(self._redis_port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", str(self.directory)),
            ],
            env,
        )
        for n in range(2):
            # The listening socket is held here, as systemd's socket activation holds it
            # (deploy/systemd/countersign-web.socket): a restarted server finds the
            # connections that arrived meanwhile waiting, none refused or dropped.
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(256)
            listener.set_inheritable(True)
            self._listeners.append(listener)
            self.web_addresses.append(f"http://127.0.0.1:{listener.getsockname()[1]}")
            own = self.directory / f"web-{n}"
            own.mkdir(parents=True, exist_ok=True)
            self._add(
                f"web-{n}",
                [
                    sys.executable,
                    "-c",
                    _HAND_OVER.format(fd=listener.fileno()),
                    *("-m", "gunicorn", "-c", "python:portal.gunicorn_conf"),
                    "portal.app:create_app()",
                ],
                {
                    **env,
                    "PORTAL_WEB_BIND": "",
                    "PORTAL_WEB_WORKERS": "2",
                    "PORTAL_WEB_ACCESS_LOG": "",
                    "PORTAL_GUNICORN_CONTROL_SOCKET": str(own / "gunicorn.ctl"),
                    "PROMETHEUS_MULTIPROC_DIR": str(own / "prometheus"),
                },
                pass_fds=(listener.fileno(),),
            )
        portal = [sys.executable, "-m", "portal.cli"]
        for n in range(2):
            self._add(f"worker-{n}", [*portal, "worker", "--queue", "default"], env)
        self._add("sweeper", [*portal, "worker", "--queue", "sweep"], env)
        self._add("scheduler", [*portal, "scheduler", "--interval", "10"], env)

        self.services["redis"].start()
        self.wait_for_redis()
        for service in self.services.values():
            if service.name != "redis":
                service.start()
        for n in range(2):
            self.wait_for_web(n)
        self._started = time.monotonic()
        self._supervisor = threading.Thread(target=self._supervise, daemon=True)
        self._supervisor.start()

    def _add(
        self, name: str, command: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()
    ) -> None:
        log = self.directory / f"{name}.log"
        self.services[name] = Service(name, command, env, log, pass_fds=pass_fds)

    def wait_for_redis(self, timeout: float = 20.0) -> None:
        client = Redis.from_url(self.redis_url, socket_timeout=1)
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.1)
            finally:
                client.close()

    def wait_for_web(self, n: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{self.web_addresses[n]}/healthz", timeout=5).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"web-{n} did not answer within {timeout} s: {self.tail(f'web-{n}')}")

    def _supervise(self) -> None:
        while not self._stop.wait(0.5):
            for service in self.services.values():
                if not service.held and not service.alive():
                    self.unplanned_restarts.append((time.monotonic() - self._started, service.name))
                    service.start()

    def tail(self, name: str, size: int = 3000) -> str:
        log = self.directory / f"{name}.log"
        return log.read_text(errors="replace")[-size:] if log.exists() else ""

    def stop(self) -> None:
        self._stop.set()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)
        # The workers before Redis, so that they leave cleanly.
        for service in reversed(list(self.services.values())):
            service.held = True
            service.stop(timeout=20)
        if self._smtp_server is not None:
            self._smtp_server.stop()
        for listener in self._listeners:
            listener.close()
