"""PostgreSQL row-level security and privileges for the app role.

Migrations call these to protect each org-scoped table as it is created; ``portal db
upgrade`` calls ``grant_app_role`` afterwards. The policy compares ``org_id`` with the
transaction-local ``app.current_org`` that ``core.db`` sets in ``after_begin``; when it
is unset, NULLIF turns it into NULL and the comparison admits nothing.
"""

from __future__ import annotations

import re

CURRENT_ORG = "NULLIF(current_setting('app.current_org', true), '')::bigint"
CURRENT_USER = "NULLIF(current_setting('app.current_user', true), '')::bigint"

# Tables the app role may only read and append to (history, published versions).
APPEND_ONLY_TABLES: set[str] = set()

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _ident(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return name


def tenant_policy_sql(table: str) -> list[str]:
    t = _ident(table)
    return [
        f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {t} FORCE ROW LEVEL SECURITY",
        f"CREATE POLICY tenant_isolation ON {t} "
        f"USING (org_id = {CURRENT_ORG}) WITH CHECK (org_id = {CURRENT_ORG})",
    ]


def drop_tenant_policy_sql(table: str) -> list[str]:
    t = _ident(table)
    return [
        f"DROP POLICY IF EXISTS tenant_isolation ON {t}",
        f"ALTER TABLE {t} NO FORCE ROW LEVEL SECURITY",
        f"ALTER TABLE {t} DISABLE ROW LEVEL SECURITY",
    ]


def grant_app_role_sql(role: str, tables: list[str]) -> list[str]:
    """Statements giving ``role`` exactly what the app needs, and nothing it must not have."""
    r = _ident(role)
    statements = [f"GRANT USAGE ON SCHEMA public TO {r}"]
    for table in tables:
        t = _ident(table)
        if t == "alembic_version":
            statements.append(f"REVOKE ALL ON {t} FROM {r}")
            continue
        statements.append(f"REVOKE ALL ON {t} FROM {r}")
        privileges = (
            "SELECT, INSERT" if t in APPEND_ONLY_TABLES else "SELECT, INSERT, UPDATE, DELETE"
        )
        statements.append(f"GRANT {privileges} ON {t} TO {r}")
    statements.append(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {r}")
    return statements
