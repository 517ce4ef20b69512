"""A live portal in a separate process, on its own fresh database, driven by Chromium.

The server is started the way an operator would (`portal demo --no-serve` to migrate
and seed, then `portal run`), on a free loopback port. On a failure the page is saved
as a screenshot under e2e/artifacts/.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.conftest import TEST_DB_NAME, _choose_backend_name, _redis_url, create_postgres_database
from tests.mailbox import Mailbox, start_smtp_server

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts"
AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"


def _e2e_redis_url() -> str:
    """The live server's Redis: the database just below the tests' own (14 beside 15)."""
    base, _, number = _redis_url().rpartition("/")
    return f"{base}/{int(number or 15) - 1}"


# The live portal's environment, for commands run beside it (``run_portal``), and the
# file its clock follows (``PORTAL_CLOCK_FILE``, shared by the server and its worker).
LIVE_ENV: dict[str, str] = {}


def run_portal(*args: str) -> str:
    """``portal <args>`` against the live portal's database, as an operator would run
    it beside the server (``portal sweep``); answers what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "portal.cli", *args],
        env=LIVE_ENV,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


def move_clock(seconds: float) -> None:
    """Move the live portal's time ``seconds`` past the real time (0: back to it). The
    server and the worker see it within a second (``core.clock`` re-reads the file)."""
    Path(LIVE_ENV["PORTAL_CLOCK_FILE"]).write_text(f"{seconds:.0f}\n")
    time.sleep(1.2)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    if not Path(CHROMIUM).exists():
        message = "Chromium is missing: apt-get install -y chromium"
        if os.environ.get("PORTAL_TEST_REQUIRE_SERVICES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def e2e_mailbox() -> Iterator[Mailbox]:
    """The live portal's mail goes to a real SMTP server on loopback."""
    controller, mailbox = start_smtp_server()
    try:
        yield mailbox
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, e2e_mailbox: Mailbox) -> Iterator[str]:
    instance = tmp_path_factory.mktemp("e2e-instance")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    smtp = e2e_mailbox.controller
    env = {
        **os.environ,
        "PORTAL_INSTANCE_DIR": str(instance),
        "PORTAL_SECRET_KEY": "e2e-secret",
        "PORTAL_LOGIN_MAX_FAILURES_PER_ADDRESS": "1000",
        "PORTAL_BASE_URL": url,
        "PORTAL_SMTP_HOST": smtp.hostname,
        "PORTAL_SMTP_PORT": str(smtp.port),
        "PORTAL_SMTP_SECURITY": "none",
        "PORTAL_CLOCK_FILE": str(instance / "clock-offset"),
    }
    (instance / "clock-offset").write_text("0\n")
    if _choose_backend_name() == "services":
        app_url, owner_url = create_postgres_database(f"{TEST_DB_NAME}_e2e")
        env.update(
            PORTAL_DATABASE_URL=app_url,
            PORTAL_MIGRATE_DATABASE_URL=owner_url,
            PORTAL_REDIS_URL=_e2e_redis_url(),
        )
    else:
        env.update(PORTAL_DATABASE_URL=f"sqlite:///{instance / 'e2e.sqlite3'}", PORTAL_REDIS_URL="")
    LIVE_ENV.clear()
    LIVE_ENV.update(env)
    portal = [sys.executable, "-m", "portal.cli"]
    subprocess.run([*portal, "demo", "--no-serve"], env=env, check=True, capture_output=True)
    log = open(instance / "server.log", "w")  # noqa: SIM115 - closed after the server stops
    server = subprocess.Popen(
        [*portal, "run", "--host", "127.0.0.1", "--port", str(port), "--without-threads"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    # On Redis, jobs (mail among them) run on a worker process of their own, as in
    # production; the embedded mode runs its worker inside the server.
    worker = (
        subprocess.Popen([*portal, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT)
        if env.get("PORTAL_REDIS_URL")
        else None
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:  # noqa: S310
                    if answer.status == 200:
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((instance / "server.log").read_text()) from None
                time.sleep(0.2)
        yield url
    finally:
        for process in (server, worker):
            if process is not None:
                process.terminate()
                process.wait(10)
        log.close()


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    return live_server


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    # Test functions (not every kind of item) carry their fixtures' values.
    funcargs = item.funcargs if isinstance(item, pytest.Function) else {}
    page = funcargs.get("page")
    if report.when == "call" and report.failed and isinstance(page, Page):
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{item.name}.png"), full_page=True)


def axe_violations(page) -> list[dict]:
    """Serious and critical accessibility violations on the current page (axe-core)."""
    # Through the DevTools protocol: the page's own CSP (rightly) refuses inline scripts.
    page.evaluate(AXE.read_text())
    results = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in results["violations"]
        if v["impact"] in {"serious", "critical"}
    ]


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
