"""`make soak`: `portal bench soak` against a scratch database made the way the tests
make theirs (the schema owner and the app role, migrated; PORTAL_TEST_DATABASE_URL names
the server), so that the soak is one command on a machine with PostgreSQL. The soak
starts its own Redis; the scratch database is dropped and made anew each run.

    python -m tests.soak.run [portal bench soak options]
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile

from tests.conftest import create_postgres_database

DATABASE = os.environ.get("PORTAL_SOAK_DB_NAME", "countersign_soak")


def main(arguments: list[str]) -> int:
    app_url, owner_url = create_postgres_database(DATABASE)
    env = {
        **os.environ,
        "PORTAL_DATABASE_URL": app_url,
        "PORTAL_MIGRATE_DATABASE_URL": owner_url,
        "PORTAL_SECRET_KEY": secrets.token_hex(32),
        "PORTAL_INSTANCE_DIR": tempfile.mkdtemp(prefix="countersign-soak-instance-"),
    }
    portal = os.path.join(os.path.dirname(sys.executable), "portal")
    os.execve(portal, [portal, "bench", "soak", *arguments], env)  # noqa: S606 - our own command


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
