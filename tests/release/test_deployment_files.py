"""The deployment files (Dockerfile, deploy/) are read and linted, not built (no
container engine here): what would otherwise show only on the day of a deploy — a
misspelt variable, a value the portal refuses, a role that can bypass row-level
security, a unit running as root, a Dockerfile hadolint faults — fails here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from portal.config import ConfigError, Settings, resolve_secret_key

DEFAULT = r"\$\{\w+:-([^}]*)\}"  # compose's ${VAR:-default}
ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = (DEPLOY / "compose.yaml").read_text()
ENV_EXAMPLE = DEPLOY / "systemd" / "countersign.env.example"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
SERVICES = ("postgres", "redis", "mailpit", "migrate", "web", "proxy", "worker", "sweeper", "scheduler")  # fmt: skip
COMMANDS = {
    "migrate": "portal db upgrade",
    "web": "gunicorn -c /app/gunicorn.conf.py portal.app:create_app()",
    "worker": "portal worker",
    "sweeper": "portal worker --queue sweep",
    "scheduler": "portal scheduler",
}
PRODUCTION_REQUIRES = {"PORTAL_ENV", "PORTAL_SECRET_KEY", "PORTAL_DATABASE_URL", "PORTAL_REDIS_URL", "PORTAL_SMTP_HOST", "PORTAL_BASE_URL"}  # fmt: skip
HARDENED = {
    "User": "countersign",
    "Restart": "on-failure",
    "KillSignal": "SIGTERM",  # graceful for gunicorn and for RQ (the job under way finishes)
    "EnvironmentFile": "/etc/countersign/countersign.env",
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "PrivateTmp": "yes",
    "ReadWritePaths": "/var/lib/countersign",
}


def known_variables() -> set[str]:
    """Every PORTAL_* name the portal reads (config.py) or its gunicorn settings read."""
    sources = (ROOT / "portal" / "config.py", ROOT / "portal" / "gunicorn_conf.py")
    text = "".join(path.read_text() for path in sources if path.exists())
    return {name.strip('"') for name in re.findall(r'"PORTAL_[A-Z_]+"', text)}


def compose_blocks(top: str) -> dict[str, str]:
    """The entries under a top-level key of the compose file, each as its indented text."""
    blocks: dict[str, list[str]] = {}
    inside, current = False, None
    for line in COMPOSE.splitlines():
        if re.match(r"[^\s#]", line):
            inside, current = line.split(":")[0] == top, None
        elif inside and (entry := re.match(r"  ([\w-]+):", line)):
            current = blocks.setdefault(entry[1], [])
        elif inside and current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in blocks.items()}


def command(block: str) -> str:
    found = re.search(r"^    command: \[(.*)\]$", block, re.M)
    return " ".join(re.findall(r'"([^"]*)"', found[1])) if found else ""


def compose_portal_env() -> dict[str, str]:
    """x-portal-env as a container sees it, compose's ${VAR:-default} taken at its default."""
    block = COMPOSE.split("x-portal-env: &portal-env\n", 1)[1].split("\n\n", 1)[0]
    pairs = re.findall(r'^  (PORTAL_\w+): ("[^"]*"|[^\s#]+)', block, re.M)
    return {name: re.sub(DEFAULT, r"\1", value.strip('"')) for name, value in pairs}


def test_the_dockerfile_builds_a_wheel_and_runs_it_unprivileged():
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")  # logical lines
    images = re.findall(r"^FROM\s+(\S+)", text, re.M)
    assert images == ["python:3.11-slim-bookworm"] * 2, "a build stage and a runtime stage"
    assert "pip wheel" in text and re.search(r"pip install -c \S*constraints\.txt", text)
    users = [(m.start(), m[1]) for m in re.finditer(r"^USER\s+(\S+)", text, re.M)]
    cmd = re.search(r"^CMD\s+(.*)$", text, re.M)
    assert users and cmd and users[-1][0] < cmd.start(), "USER comes before CMD"
    assert users[-1][1].split(":")[0] not in {"root", "0"}
    assert "gunicorn.conf.py" in cmd[1] and "portal.app:create_app()" in cmd[1]
    assert re.search(r"^HEALTHCHECK .*urllib.*/healthz", text, re.M)
    assert "PORTAL_ENV=production" in text and "EXPOSE 8000" in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "instance", "dist", "build", "e2e/artifacts"} <= set(ignored)


def test_compose_runs_every_role_after_the_migration():
    services = compose_blocks("services")
    assert set(SERVICES) <= set(services)
    for image in re.findall(r"^\s+image:\s*\"?([^\s\"]+)", COMPOSE, re.M):
        tag = re.sub(DEFAULT, r"\1", image).rsplit("/", 1)[-1].partition(":")[2]
        assert tag and tag != "latest", f"{image}: pin a tag, not latest"
    for name, expected in COMMANDS.items():
        assert command(services[name]) == expected, name
        if name != "migrate":
            assert "<<: *portal" in services[name], f"{name} waits for the migration"
    waits = compose_blocks("x-portal")["depends_on"]
    assert re.search(r"migrate:\n\s+condition: service_completed_successfully", waits)
    assert "PORTAL_MIGRATE_DATABASE_URL" in services["migrate"], "migrates as the owner"
    assert "replicas: 2" in services["web"] and "replicas: 2" in services["worker"]
    assert "./postgres-init:/docker-entrypoint-initdb.d" in services["postgres"]
    assert "pg_isready" in services["postgres"] and "redis-cli" in services["redis"]
    assert "./nginx.conf:/etc/nginx/nginx.conf" in services["proxy"]
    assert re.search(r'"(127\.0\.0\.1:)?8080:8080"', services["proxy"])


def test_the_proxy_passes_the_client_and_the_request_id():
    text = (DEPLOY / "nginx.conf").read_text()
    for directive in ("X-Forwarded-For", "X-Forwarded-Proto", "X-Request-Id"):
        assert re.search(rf"^\s+proxy_set_header {directive} \$", text, re.M), directive
    assert re.search(r"^\s+client_max_body_size 2m;", text, re.M), "the portal's 2 MiB limit"
    assert re.search(r"^\s+server web:8000", text, re.M)


def test_the_init_script_creates_the_roles_the_readme_describes():
    script = (DEPLOY / "postgres-init" / "01-roles.sh").read_text()
    readme = (ROOT / "README.md").read_text()
    pattern = r"^\s*CREATE ROLE countersign_app LOGIN PASSWORD \S+ ([A-Z ]+);$"
    app_role, documented = re.search(pattern, script, re.M), re.search(pattern, readme, re.M)
    assert app_role and documented and "NOBYPASSRLS" in app_role[1].split()
    assert app_role[1] == documented[1], "the attributes the README gives the app role"
    for line in (
        "CREATE ROLE countersign_owner LOGIN PASSWORD",
        "CREATE DATABASE countersign OWNER countersign_owner;",
        "ALTER SCHEMA public OWNER TO countersign_owner;",
    ):
        assert line in script and line.split(" PASSWORD")[0] in readme


@pytest.mark.parametrize("path", [DEPLOY / "compose.yaml", ENV_EXAMPLE], ids=lambda p: p.name)
def test_every_portal_variable_named_is_one_the_portal_reads(path):
    named = set(re.findall(r"\bPORTAL_[A-Z0-9_]+", path.read_text()))
    assert named and not named - known_variables(), named - known_variables()


def test_the_compose_settings_pass_the_portals_checks():
    env = compose_portal_env()
    assert {"PORTAL_TRUSTED_PROXIES", "PORTAL_SECURE_COOKIES"} <= set(env)
    resolve_secret_key(Settings.from_env(env))
    # The comment's promise: with TLS in front, only these two change for production.
    behind_tls = {**env, "PORTAL_ENV": "production", "PORTAL_BASE_URL": "https://cs.example"}
    resolve_secret_key(Settings.from_env(behind_tls))


def test_the_env_example_sets_what_production_requires():
    pairs = re.findall(r"^(PORTAL_\w+)=(.*)$", ENV_EXAMPLE.read_text(), re.M)
    env = {name: value.strip('"') for name, value in pairs}
    assert set(env) >= PRODUCTION_REQUIRES and env["PORTAL_ENV"] == "production"
    settings = Settings.from_env(env)  # every placeholder has the shape the portal takes
    with pytest.raises(ConfigError, match="PORTAL_SECRET_KEY"):
        resolve_secret_key(settings)  # and the placeholder key itself cannot go live


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_every_unit_runs_hardened_as_the_service_user(unit):
    settings = dict(re.findall(r"^(\w+)=(.*)$", unit.read_text(), re.M))
    assert {key: settings.get(key) for key in HARDENED} == HARDENED
    assert settings["ExecStart"].startswith("/opt/countersign/bin/")


def test_the_units_serve_every_role():
    assert {unit.name for unit in UNITS} == {"countersign-web.service", "countersign-worker@.service", "countersign-scheduler.service"}  # fmt: skip
    worker = (DEPLOY / "systemd" / "countersign-worker@.service").read_text()
    assert "ExecStart=/opt/countersign/bin/portal worker --queue %i" in worker
    # The web socket is systemd's, held across restarts of the web service.
    web = (DEPLOY / "systemd" / "countersign-web.service").read_text()
    socket_unit = (DEPLOY / "systemd" / "countersign-web.socket").read_text()
    assert "Requires=countersign-web.socket" in web
    assert re.search(r"^ListenStream=\S+:8000$", socket_unit, re.M)


def _hadolint(dockerfile: Path) -> subprocess.CompletedProcess[str]:
    binary = Path(sys.executable).parent / "hadolint"
    return subprocess.run(  # noqa: S603 - the linter the test extras install
        [str(binary), "--no-color", str(dockerfile)], capture_output=True, text=True, check=False
    )


def test_the_dockerfile_passes_hadolint(tmp_path):
    # The linter does find what it is there for: a floating tag, an unpinned apt-get.
    careless = tmp_path / "Dockerfile"
    careless.write_text("FROM python:latest\nRUN apt-get install curl\n")
    found = _hadolint(careless)
    assert found.returncode != 0 and "DL3007" in found.stdout

    ours = _hadolint(ROOT / "Dockerfile")
    assert (ours.returncode, ours.stdout, ours.stderr) == (0, "", "")
