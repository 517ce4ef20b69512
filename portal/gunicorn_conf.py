"""gunicorn's settings for Countersign's web processes, shipped inside the package:

    gunicorn -c python:portal.gunicorn_conf 'portal.app:create_app()'

(a checkout's ``gunicorn.conf.py`` imports this, so plain ``gunicorn`` there takes it
too). Every value can be overridden on the command line; the ``PORTAL_WEB_*`` variables
below change the common ones without a file of your own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any


def _number(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


# Sync workers: a request holds its worker for its whole time, and the portal's requests
# are short (a decision costs about 6 ms of CPU). Twice the cores plus one keeps the
# cores busy while some workers wait on PostgreSQL; the README says how to size it.
# Under systemd socket activation (deploy/systemd/countersign-web.socket) the listening
# socket is systemd's, handed over in LISTEN_FDS and held open across restarts, so no
# connection is refused or dropped while the service restarts; gunicorn binds nothing
# else then.
bind: str | list[str] = os.environ.get("PORTAL_WEB_BIND") or (
    [] if os.environ.get("LISTEN_FDS") else "0.0.0.0:8000"
)
workers = _number("PORTAL_WEB_WORKERS", 2 * (os.cpu_count() or 1) + 1)
worker_class = "sync"
# A request that takes longer than this is stuck: its worker is killed and replaced.
timeout = _number("PORTAL_WEB_TIMEOUT", 30)
# On SIGTERM or HUP, requests under way get this long to finish.
graceful_timeout = 30
# Behind a reverse proxy that keeps connections open to us.
keepalive = 5
# A worker is replaced after this many requests (with jitter, not all at once), so slow
# growth in memory never builds up.
max_requests = 5000
max_requests_jitter = 500

# The access log on standard output, one line a request with its id (the X-Request-Id
# the portal answers with, which every log line of the request carries too) and its
# time; PORTAL_WEB_ACCESS_LOG="" turns it off, or names a file.
accesslog = os.environ.get("PORTAL_WEB_ACCESS_LOG", "-") or None
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s agent="%(a)s"'
errorlog = "-"

# gunicornc talks to the running server through this socket (show workers, add or
# remove workers, reload); kept in the instance directory, which the service owns.
control_socket = os.environ.get("PORTAL_GUNICORN_CONTROL_SOCKET") or str(
    Path(os.environ.get("PORTAL_INSTANCE_DIR") or "instance") / "gunicorn.ctl"
)
control_socket_mode = 0o600

# The web processes' Prometheus counters (``core.metrics``) live in one directory, so
# that whichever process answers /metrics answers for all; emptied as the server
# starts, and a worker that exits has its share of the live gauges dropped.
_metrics_dir = Path(
    os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    or Path(os.environ.get("PORTAL_INSTANCE_DIR") or "instance") / "prometheus"
)
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(_metrics_dir)


def on_starting(_server: Any) -> None:
    shutil.rmtree(_metrics_dir, ignore_errors=True)
    _metrics_dir.mkdir(parents=True, exist_ok=True)


def child_exit(_server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
