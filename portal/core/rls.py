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

# Tables the app role may only read and append to (history, published versions). A
# trigger refuses UPDATE and DELETE on them too, for every role, on both databases.
APPEND_ONLY_TABLES: set[str] = {"flow_version", "decision"}

_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def _ident(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
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


# One trigger function serves every append-only table on PostgreSQL. The one deletion
# it lets through is the cascade from removing a whole organization (the parent row is
# already gone by then): the platform operator's decision, not the application's.
_REFUSE_CHANGE_FUNCTION = """
CREATE OR REPLACE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM organization WHERE id = OLD.org_id) THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END
$$
"""


def append_only_sql(table: str, dialect: str) -> list[str]:
    """Triggers refusing UPDATE and DELETE on ``table``, owner included (except the
    cascade from deleting the organization itself)."""
    t = _ident(table)
    if dialect == "postgresql":
        return [
            _REFUSE_CHANGE_FUNCTION,
            f"CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t} "
            "FOR EACH ROW EXECUTE FUNCTION refuse_change()",
            f"CREATE TRIGGER {t}_no_truncate BEFORE TRUNCATE ON {t} "
            "FOR EACH STATEMENT EXECUTE FUNCTION refuse_change()",
        ]
    return [
        f"CREATE TRIGGER {t}_no_update BEFORE UPDATE ON {t} "
        f"BEGIN SELECT RAISE(ABORT, '{t} is append-only: UPDATE refused'); END",
        f"CREATE TRIGGER {t}_no_delete BEFORE DELETE ON {t} "  # noqa: S608 - t is checked by _ident
        f"WHEN EXISTS (SELECT 1 FROM organization WHERE id = OLD.org_id) "
        f"BEGIN SELECT RAISE(ABORT, '{t} is append-only: DELETE refused'); END",
    ]


def drop_append_only_sql(table: str, dialect: str) -> list[str]:
    t = _ident(table)
    if dialect == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS {t}_append_only ON {t}",
            f"DROP TRIGGER IF EXISTS {t}_no_truncate ON {t}",
        ]
    return [f"DROP TRIGGER IF EXISTS {t}_no_update", f"DROP TRIGGER IF EXISTS {t}_no_delete"]


# The chart version (``organization.chart_version``) changes with every row of these.
CHART_TABLES = ("org_unit", "position", "position_holding", "membership")

_BUMP_CHART_FUNCTION = """
CREATE OR REPLACE FUNCTION bump_chart_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE organization SET chart_version = nextval('chart_version_seq')
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.org_id ELSE NEW.org_id END;
    RETURN NULL;
END
$$
"""


def chart_version_sql(dialect: str) -> list[str]:
    """Triggers giving the organization a new chart version whenever its chart or its
    memberships change. A sequence (PostgreSQL) or a random 63-bit number (SQLite): a
    value from a rolled-back transaction is never handed out again."""
    if dialect == "postgresql":
        statements = ["CREATE SEQUENCE chart_version_seq", _BUMP_CHART_FUNCTION]
        for table in CHART_TABLES:
            t = _ident(table)
            statements.append(
                f"CREATE TRIGGER {t}_bumps_chart AFTER INSERT OR UPDATE OR DELETE ON {t} "
                "FOR EACH ROW EXECUTE FUNCTION bump_chart_version()"
            )
        return statements
    statements = []
    for table in CHART_TABLES:
        t = _ident(table)
        for op, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            statements.append(
                f"CREATE TRIGGER {t}_bumps_chart_{op.lower()} AFTER {op} ON {t} BEGIN "  # noqa: S608 - t is checked by _ident
                "UPDATE organization SET chart_version = abs(random()) "
                f"WHERE id = {row}.org_id; END"
            )
    return statements


def drop_chart_version_sql(dialect: str) -> list[str]:
    if dialect == "postgresql":
        return [
            *(
                f"DROP TRIGGER IF EXISTS {_ident(t)}_bumps_chart ON {_ident(t)}"
                for t in CHART_TABLES
            ),
            "DROP FUNCTION IF EXISTS bump_chart_version()",
            "DROP SEQUENCE IF EXISTS chart_version_seq",
        ]
    return [
        f"DROP TRIGGER IF EXISTS {_ident(t)}_bumps_chart_{op}"
        for t in CHART_TABLES
        for op in ("insert", "update", "delete")
    ]
