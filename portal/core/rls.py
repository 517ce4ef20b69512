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
# The one address an anonymous sign-in, reset or invitation may look an account up by.
ACCOUNT_EMAIL = "NULLIF(current_setting('app.account_email', true), '')"
# The platform itself (CLI, seeding, workers): never set while a web request is served.
OPERATOR = "current_setting('app.operator', true) = 'on'"

# Tables the app role may only read and append to (history, published versions). A
# trigger refuses UPDATE and DELETE on them too, for every role, on both databases.
APPEND_ONLY_TABLES: set[str] = {
    "flow_version",
    "decision",
    "document_edit",
    "deadline_effect",
    "audit_export",
    "chain_verification",
}

# What the app role may do, table by table: the privileges, and the only columns it may
# UPDATE. Nothing else: no DELETE but of a discarded flow draft, no UPDATE of a key, a
# tenant, a timestamp of creation or an email address. tests/core/test_privileges.py
# states the same list independently.
APP_PRIVILEGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "organization": (
        "SELECT, INSERT",
        (
            "name",
            "default_locale",
            "time_zone",
            "territory",
            "chart_version",
            "require_admin_two_factor",
            "archived_at",
            "reminder_lead_minutes",
        ),
    ),
    "app_user": ("SELECT, INSERT", ("name", "locale", "session_version", "active")),
    "credential": (
        "SELECT, INSERT",
        (
            "password_hash",
            "password_changed_at",
            "totp_secret",
            "totp_pending_secret",
            "totp_enabled_at",
            "totp_last_step",
            "recovery_codes",
        ),
    ),
    "account_token": ("SELECT, INSERT", ("used_at",)),
    "membership": ("SELECT, INSERT", ("roles", "active", "left_at", "time_zone")),
    "invitation": (
        "SELECT, INSERT",
        (
            "name",
            "roles",
            "invited_by",
            "selector",
            "expires_at",
            "sent_at",
            "send_count",
            "accepted_at",
            "member_id",
            "revoked_at",
            "revoked_by",
        ),
    ),
    "org_unit": ("SELECT, INSERT", ("code", "name", "parent_id", "head_position_id")),
    "position": ("SELECT, INSERT", ("code", "title", "unit_id", "reports_to_id", "active")),
    "position_holding": ("SELECT, INSERT", ("valid_to",)),
    "seat_reservation": ("SELECT, INSERT", ("valid_from", "settled_at")),
    "import_job": (
        "SELECT, INSERT",
        (
            "status",
            "started_at",
            "created",
            "updated",
            "invited",
            "problems",
            "failure",
            "finished_at",
        ),
    ),
    "flow_draft": (
        "SELECT, INSERT, DELETE",
        ("revision", "base_version", "graph", "updated_at", "updated_by"),
    ),
    "flow_version": ("SELECT, INSERT", ()),
    "reference_counter": ("SELECT, INSERT", ("last_number",)),
    "document": (
        "SELECT, INSERT",
        (
            "title",
            "description",
            "amount",
            "currency",
            "fields",
            "state",
            "state_entered_at",
            "dispute_raiser_id",
            "row_version",
            "chain_seq",
            "chain_hash",
            "updated_at",
            "discarded_at",
            "discarded_by",
        ),
    ),
    "document_edit": ("SELECT, INSERT", ()),
    "task": ("SELECT, INSERT", ("status", "completed_at", "completed_by", "sweep_at")),
    "deadline_effect": ("SELECT, INSERT", ()),
    "decision": ("SELECT, INSERT", ()),
    # Never deleted: revoked, and the notices of its start and end stamped once.
    "delegation": (
        "SELECT, INSERT",
        ("revoked_at", "revoked_by", "start_noticed_at", "end_noticed_at"),
    ),
    # The audit's own evidence: who exported what, and every pass over the chains.
    "audit_export": ("SELECT, INSERT", ()),
    "chain_verification": ("SELECT, INSERT", ()),
    # DELETE: pruning delivered rows (a restrictive policy admits no other).
    "outbox": (
        "SELECT, INSERT, DELETE",
        ("attempts", "next_attempt_at", "dispatched_at", "last_error", "dead_at"),
    ),
    "notification": ("SELECT, INSERT", ("read_at",)),
    "notice_preference": ("SELECT, INSERT", ("channels", "email_digest", "updated_at")),
    "mail_digest": ("SELECT, INSERT", ()),
    "heartbeat": ("SELECT", ("beat_at", "detail")),
    # Read by the readiness check (is the database at the migration head?).
    "alembic_version": ("SELECT", ()),
}

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
    """Statements giving ``role`` exactly what the app needs (``APP_PRIVILEGES``), and
    nothing it must not have: a table the list does not name gets nothing at all."""
    r = _ident(role)
    statements = [f"GRANT USAGE ON SCHEMA public TO {r}"]
    for table in tables:
        t = _ident(table)
        statements.append(f"REVOKE ALL ON {t} FROM {r}")
        if t not in APP_PRIVILEGES:
            continue
        privileges, columns = APP_PRIVILEGES[t]
        statements.append(f"GRANT {privileges} ON {t} TO {r}")
        if columns:
            listed = ", ".join(_ident(c) for c in columns)
            statements.append(f"GRANT UPDATE ({listed}) ON {t} TO {r}")
    statements.append(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {r}")
    return statements


# Platform tables: row-level security enabled (not forced: the schema owner keeps
# maintenance access), one policy per command so each says exactly who passes.
_MEMBER_OF_CURRENT_ORG = (
    "EXISTS (SELECT 1 FROM membership m "  # noqa: S608 - constants only, no input
    f"WHERE m.user_id = app_user.id AND m.org_id = {CURRENT_ORG})"
)
PLATFORM_POLICIES: dict[str, list[tuple[str, str, str]]] = {
    # (policy name, command, USING / WITH CHECK expression)
    "organization": [
        (
            "organization_visible",
            "SELECT",
            f"id = {CURRENT_ORG} OR {OPERATOR} OR id IN "  # noqa: S608 - constants only
            f"(SELECT m.org_id FROM membership m WHERE m.user_id = {CURRENT_USER})",
        ),
        ("organization_created", "INSERT", OPERATOR),
        ("organization_changed", "UPDATE", f"id = {CURRENT_ORG} OR {OPERATOR}"),
    ],
    "app_user": [
        (
            "account_visible",
            "SELECT",
            f"id = {CURRENT_USER} OR email = {ACCOUNT_EMAIL} OR {OPERATOR} "
            f"OR {_MEMBER_OF_CURRENT_ORG}",
        ),
        ("account_created", "INSERT", f"email = {ACCOUNT_EMAIL} OR {OPERATOR}"),
        ("account_changed", "UPDATE", f"id = {CURRENT_USER} OR {OPERATOR}"),
    ],
    "credential": [
        ("credential_own", "ALL", f"user_id = {CURRENT_USER} OR {OPERATOR}"),
    ],
    "account_token": [
        ("account_token_own", "ALL", f"user_id = {CURRENT_USER} OR {OPERATOR}"),
    ],
}


def platform_policy_sql(table: str) -> list[str]:
    t = _ident(table)
    statements = [f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY"]
    for name, command, expression in PLATFORM_POLICIES[t]:
        if command == "SELECT":
            clause = f"USING ({expression})"
        elif command == "INSERT":
            clause = f"WITH CHECK ({expression})"
        else:
            clause = f"USING ({expression}) WITH CHECK ({expression})"
        statements.append(f"CREATE POLICY {_ident(name)} ON {t} FOR {command} {clause}")
    return statements


def drop_platform_policy_sql(table: str) -> list[str]:
    t = _ident(table)
    return [
        *(f"DROP POLICY IF EXISTS {_ident(n)} ON {t}" for n, _, _ in PLATFORM_POLICIES[t]),
        f"ALTER TABLE {t} DISABLE ROW LEVEL SECURITY",
    ]


def outbox_policy_sql() -> list[str]:
    """The outbox holds organizations' events and account events (no organization):
    a unit of work sees its organization's; an account's own events are its own and
    the platform's (which delivers them) — never an anonymous request's."""
    own = f"(payload->>'user_id')::bigint = {CURRENT_USER}"
    both = (
        f"org_id = {CURRENT_ORG} OR (org_id IS NULL AND {CURRENT_ORG} IS NULL "
        f"AND ({OPERATOR} OR {own}))"
    )
    return [
        "DROP POLICY IF EXISTS tenant_isolation ON outbox",
        f"CREATE POLICY tenant_isolation ON outbox USING ({both}) WITH CHECK ({both})",
    ]


# One trigger function serves every append-only table on PostgreSQL. It lets nothing
# through: organizations are archived, never deleted, so no cascade needs a way past.
REFUSE_CHANGE_FUNCTION = """
CREATE OR REPLACE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END
$$
"""


def append_only_sql(table: str, dialect: str) -> list[str]:
    """Triggers refusing UPDATE and DELETE on ``table``, for every role, owner included."""
    t = _ident(table)
    if dialect == "postgresql":
        return [
            REFUSE_CHANGE_FUNCTION,
            f"CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t} "
            "FOR EACH ROW EXECUTE FUNCTION refuse_change()",
            f"CREATE TRIGGER {t}_no_truncate BEFORE TRUNCATE ON {t} "
            "FOR EACH STATEMENT EXECUTE FUNCTION refuse_change()",
        ]
    return [
        f"CREATE TRIGGER {t}_no_update BEFORE UPDATE ON {t} "
        f"BEGIN SELECT RAISE(ABORT, '{t} is append-only: UPDATE refused'); END",
        f"CREATE TRIGGER {t}_no_delete BEFORE DELETE ON {t} "
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
