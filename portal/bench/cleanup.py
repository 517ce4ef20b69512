"""Removing throwaway organizations (the benchmarks' and the tests' own), as the schema
owner: the application can delete no organization, no account and no history, and
nothing cascades. Real organizations are archived (`portal archive-org`), never this.

The owner sets the append-only triggers aside for this one transaction, then deletes
each organization's rows children first, naming the organization the way row-level
security expects, and the throwaway accounts last.
"""

from __future__ import annotations

from sqlalchemy import Connection, create_engine, pool, text

from portal.core.rls import APPEND_ONLY_TABLES, append_only_sql, drop_append_only_sql

# Children before parents: every foreign key points to a table later in this list.
ORG_TABLES = (
    "audit_export",
    "chain_verification",
    "notification",
    "mail_digest",
    "notice_preference",
    "outbox",
    "deadline_effect",
    "decision",
    "delegation",
    "task",
    "document",
    "reference_counter",
    "import_job",
    "seat_reservation",
    "invitation",
    "position_holding",
    "flow_draft",
    "flow_version",
    "position",
    "org_unit",
    "membership",
)
ACCOUNT_TABLES = ("account_token", "credential")


def _delete_organization(conn: Connection, org_id: int) -> None:
    postgres = conn.dialect.name == "postgresql"
    if postgres:  # row-level security is forced, for the owner too
        conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org_id)})
        # As the platform: pruning the outbox is otherwise limited to delivered rows.
        conn.execute(text("SELECT set_config('app.operator', 'on', true)"))
    # Units and seats point at each other: let go of those links first.
    conn.execute(
        text("UPDATE org_unit SET head_position_id = NULL, parent_id = NULL WHERE org_id = :o"),
        {"o": org_id},
    )
    conn.execute(text("UPDATE position SET reports_to_id = NULL WHERE org_id = :o"), {"o": org_id})
    for table in ORG_TABLES:
        conn.execute(text(f"DELETE FROM {table} WHERE org_id = :o"), {"o": org_id})  # noqa: S608 - constant names
    conn.execute(text("DELETE FROM organization WHERE id = :o"), {"o": org_id})


def purge_organizations(owner_url: str, *, slug_like: str, email_like: str | None = None) -> int:
    """Delete the organizations whose slug matches ``slug_like`` with all their rows,
    and the accounts whose email matches ``email_like``; returns how many organizations."""
    engine = create_engine(owner_url, poolclass=pool.NullPool)
    dialect = engine.dialect.name
    try:
        with engine.begin() as conn:
            for table in sorted(APPEND_ONLY_TABLES):
                for statement in drop_append_only_sql(table, dialect):
                    conn.execute(text(statement))
            org_ids = list(
                conn.scalars(
                    text("SELECT id FROM organization WHERE slug LIKE :p"), {"p": slug_like}
                )
            )
            for org_id in org_ids:
                _delete_organization(conn, org_id)
            if email_like is not None:
                users = "SELECT id FROM app_user WHERE email LIKE :p"
                for table in ACCOUNT_TABLES:
                    conn.execute(
                        text(f"DELETE FROM {table} WHERE user_id IN ({users})"),  # noqa: S608 - constant names
                        {"p": email_like},
                    )
                conn.execute(text("DELETE FROM app_user WHERE email LIKE :p"), {"p": email_like})
            for table in sorted(APPEND_ONLY_TABLES):
                for statement in append_only_sql(table, dialect):
                    conn.execute(text(statement))
            return len(org_ids)
    finally:
        engine.dispose()
