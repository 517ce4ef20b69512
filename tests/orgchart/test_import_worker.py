"""An 800-row members file, imported by a real `portal worker` process on Redis: the
request only accepts the file; the worker checks and applies it, counts its progress,
and the invitations' mail goes out through the same worker."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from portal.accounts import services as accounts
from portal.bench.cleanup import purge_organizations
from portal.core.queue import get_queue, redis_holder
from portal.domain.actor import Role
from portal.orgchart import services as chart
from portal.orgchart.services import imports
from portal.provisioning import provision_organization
from tests.factories import PASSWORD, actor_of, system_actor

pytestmark = pytest.mark.postgres_only
ROWS = 800


def test_a_large_import_runs_on_a_worker_and_invites_everyone(
    backend, committed, settings, smtp_server, tmp_path
):
    if not backend.postgres:
        pytest.skip("a worker process needs the real Redis and database")
    slug = f"import-{uuid.uuid4().hex[:8]}"
    org = provision_organization(slug, "Import Ltd", base_currency="MYR")
    try:
        accounts.create_user(f"admin@{slug}.test", "Import Admin", PASSWORD)
        accounts.enrol_member(system_actor(org), email=f"admin@{slug}.test", roles=[Role.ADMIN])
        admin = actor_of(slug, f"admin@{slug}.test")
        unit = chart.create_unit(admin, code="OPS", name="Operations")
        chart.create_position(admin, code="STAFF", title="Staff", unit_id=unit.id)
        lines = ["email,name,position_code,holding"] + [
            f"person{n}@{slug}.test,Person {n},STAFF,secondary" for n in range(ROWS)
        ]
        data = ("\n".join(lines) + "\n").encode()

        job_id = imports.start_import(admin, kind="members", filename="people.csv", data=data)

        accepted = imports.get_import(admin, job_id)
        assert (accepted.status, accepted.rows, accepted.applied) == ("queued", ROWS, 0)
        assert len(get_queue()) >= 1  # the request only queued the work
        smtp = smtp_server[0]
        env = {
            **os.environ,
            "PORTAL_DATABASE_URL": backend.app_url,
            "PORTAL_MIGRATE_DATABASE_URL": backend.owner_url,
            "PORTAL_REDIS_URL": backend.redis_url,
            "PORTAL_SECRET_KEY": settings.secret_key,
            "PORTAL_INSTANCE_DIR": str(tmp_path),
            "PORTAL_SMTP_HOST": smtp.hostname,
            "PORTAL_SMTP_PORT": str(smtp.port),
            "PORTAL_SMTP_SECURITY": "none",
        }
        worker = subprocess.run(
            [sys.executable, "-m", "portal.cli", "worker", "--burst"],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert worker.returncode == 0, worker.stderr[-2000:]

        done = imports.get_import(admin, job_id)
        assert (done.status, done.invited, done.applied, done.problems) == ("done", ROWS, ROWS, [])
        counted = redis_holder.get().get(imports.progress_key(org.id, job_id))
        assert counted is not None and int(counted) == ROWS  # the worker told its progress
        assert len(accounts.members_overview(admin).invitations) == ROWS
        received = [m for m in smtp_server[1].received if m.recipients[0].endswith(f"@{slug}.test")]
        assert len(received) == ROWS
    finally:
        purge_organizations(backend.owner_url, slug_like=slug, email_like=f"%@{slug}.test")
