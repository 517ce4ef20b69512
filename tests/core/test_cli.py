"""The operator's commands, run as the operator runs them: a process of their own, its
settings from the environment or a .env file, refused by name when one is wrong."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from portal.accounts import queries as account_queries
from portal.bench.cleanup import purge_organizations
from tests.factories import open_invitation


def _portal(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own CLI, with the test's arguments
        [sys.executable, "-m", "portal.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PORTAL_")}


def test_a_dotenv_file_is_read_and_a_bad_value_stops_the_command_naming_it(tmp_path):
    env = {**_clean_env(), "PORTAL_INSTANCE_DIR": str(tmp_path / "instance")}
    (tmp_path / ".env").write_text("PORTAL_DEFAULT_LOCALE=ms\n")
    fine = _portal("routes", cwd=tmp_path, env=env)
    assert fine.returncode == 0, fine.stderr
    assert "accounts.login" in fine.stdout

    (tmp_path / ".env").write_text("PORTAL_ENV=prod\n")
    refused = _portal("routes", cwd=tmp_path, env=env)
    assert refused.returncode != 0
    assert "PORTAL_ENV must be one of development, production, test; it is 'prod'" in (
        refused.stderr
    )
    assert "Traceback" not in refused.stderr

    (tmp_path / ".env").write_text(
        "PORTAL_ENV=production\nPORTAL_SECRET_KEY=" + "k" * 40 + "\n"
        "PORTAL_DATABASE_URL=sqlite:///demo.sqlite3\n"
    )
    production = _portal("routes", cwd=tmp_path, env=env)
    assert "PORTAL_DATABASE_URL must name PostgreSQL when PORTAL_ENV=production" in (
        production.stderr
    )


def test_create_org_invites_its_first_admin_and_archive_org_closes_it(backend, committed, tmp_path):
    slug = f"cli-{uuid.uuid4().hex[:8]}"
    env = {
        **_clean_env(),
        "PORTAL_INSTANCE_DIR": str(tmp_path),
        "PORTAL_DATABASE_URL": backend.app_url,
        "PORTAL_MIGRATE_DATABASE_URL": backend.owner_url,
        "PORTAL_REDIS_URL": backend.redis_url,
    }
    try:
        created = _portal(
            "create-org", slug, "CLI Org", "--currency", "MYR",
            "--admin-email", f"first@{slug}.test", "--admin-name", "First Admin",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        assert f"an invitation to first@{slug}.test is on its way" in created.stdout
        org = account_queries.find_organization(slug)
        assert org is not None
        assert open_invitation(org, f"first@{slug}.test")  # no account, no password
        assert account_queries.find_user(f"first@{slug}.test") is None

        archived = _portal("archive-org", slug, cwd=tmp_path, env=env)
        assert archived.returncode == 0, archived.stderr
        org = account_queries.find_organization(slug)
        assert org is not None and org.archived_at is not None
        missing = _portal("archive-org", "no-such-org", cwd=tmp_path, env=env)
        assert missing.returncode != 0 and "there is no organization" in missing.stderr
    finally:
        purge_organizations(backend.owner_url, slug_like=slug)


def test_create_org_sets_its_time_zone_and_country_and_refuses_a_bad_zone(
    backend, committed, tmp_path
):
    slug = f"cli-{uuid.uuid4().hex[:8]}"
    env = {
        **_clean_env(),
        "PORTAL_INSTANCE_DIR": str(tmp_path),
        "PORTAL_DATABASE_URL": backend.app_url,
        "PORTAL_MIGRATE_DATABASE_URL": backend.owner_url,
        "PORTAL_REDIS_URL": backend.redis_url,
    }
    admin = ("--admin-email", f"first@{slug}.test", "--admin-name", "First Admin")
    try:
        created = _portal(
            "create-org", slug, "KL Org", "--currency", "MYR",
            "--time-zone", "Asia/Kuala_Lumpur", "--territory", "MY", *admin,
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        org = account_queries.find_organization(slug)
        assert org is not None
        assert (org.time_zone, org.territory) == ("Asia/Kuala_Lumpur", "MY")

        refused = _portal(
            "create-org", f"{slug}-x", "Nowhere Org", "--time-zone", "Mars/Olympus", *admin,
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert refused.returncode != 0
        assert "“Mars/Olympus” is not a time zone." in refused.stderr
        assert "Traceback" not in refused.stderr
        assert account_queries.find_organization(f"{slug}-x") is None
    finally:
        purge_organizations(backend.owner_url, slug_like=slug)
