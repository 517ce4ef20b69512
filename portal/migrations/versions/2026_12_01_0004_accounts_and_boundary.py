"""Accounts that belong to their owners, and a trust boundary in the database.

- ``credential`` holds the password hash (moved off ``app_user``) and the second factor,
  so reading a colleague's name never reads their secrets; ``account_token`` holds
  single-use reset links.
- ``invitation``: admins invite; the person sets their own password. ``membership``
  records when a person left; ``organization`` is archived, never deleted, and may
  require a second factor of its admins.
- ``seat_reservation`` and ``import_job``: a CSV import runs on a worker, and gives
  seats to people who have yet to join.
- The outbox also carries account mail (no organization) and marks dead letters.
- Every ON DELETE CASCADE becomes RESTRICT, and the append-only trigger no longer lets
  an organization's deletion through: nothing can erase a tenant's history.
- PostgreSQL: row-level security on the platform tables (``core.rls.PLATFORM_POLICIES``)
  and on the new org tables.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from portal.core.rls import (
    REFUSE_CHANGE_FUNCTION,
    drop_platform_policy_sql,
    drop_tenant_policy_sql,
    outbox_policy_sql,
    platform_policy_sql,
    tenant_policy_sql,
)

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
NEW_TENANT_TABLES = ("invitation", "seat_reservation", "import_job")
PLATFORM_TABLES = ("organization", "app_user", "credential", "account_token")
APPEND_ONLY = ("flow_version", "decision")

# (table, constraint, columns, referred table, referred columns): every key that
# cascaded a deletion until now.
CASCADING_KEYS = (
    ("membership", "fk_membership_org_id_organization", ["org_id"], "organization", ["id"]),
    ("membership", "fk_membership_user_id_app_user", ["user_id"], "app_user", ["id"]),
    ("org_unit", "fk_org_unit_org_id_organization", ["org_id"], "organization", ["id"]),
    ("position", "fk_position_org_id_organization", ["org_id"], "organization", ["id"]),
    (
        "position_holding",
        "fk_position_holding_org_id_organization",
        ["org_id"],
        "organization",
        ["id"],
    ),
    (
        "position_holding",
        "fk_position_holding_org_id_member_id_membership",
        ["org_id", "member_id"],
        "membership",
        ["org_id", "id"],
    ),
    (
        "position_holding",
        "fk_position_holding_org_id_position_id_position",
        ["org_id", "position_id"],
        "position",
        ["org_id", "id"],
    ),
    ("flow_draft", "fk_flow_draft_org_id_organization", ["org_id"], "organization", ["id"]),
    ("flow_version", "fk_flow_version_org_id_organization", ["org_id"], "organization", ["id"]),
    (
        "reference_counter",
        "fk_reference_counter_org_id_organization",
        ["org_id"],
        "organization",
        ["id"],
    ),
    ("document", "fk_document_org_id_organization", ["org_id"], "organization", ["id"]),
    ("task", "fk_task_org_id_organization", ["org_id"], "organization", ["id"]),
    (
        "task",
        "fk_task_org_id_document_id_document",
        ["org_id", "document_id"],
        "document",
        ["org_id", "id"],
    ),
    ("decision", "fk_decision_org_id_organization", ["org_id"], "organization", ["id"]),
    ("outbox", "fk_outbox_org_id_organization", ["org_id"], "organization", ["id"]),
    ("notification", "fk_notification_org_id_organization", ["org_id"], "organization", ["id"]),
    (
        "notification",
        "fk_notification_org_id_member_id_membership",
        ["org_id", "member_id"],
        "membership",
        ["org_id", "id"],
    ),
    (
        "notification",
        "fk_notification_org_id_document_id_document",
        ["org_id", "document_id"],
        "document",
        ["org_id", "id"],
    ),
)

# The trigger function as revision 0003 left it (for the downgrade).
_REFUSE_CHANGE_BUT_ORG_CASCADE = """
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


def _org_id(table: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(
        "org_id",
        ID,
        sa.ForeignKey(
            "organization.id", ondelete="RESTRICT", name=f"fk_{table}_org_id_organization"
        ),
        nullable=nullable,
    )


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", column],
        [f"{target}.org_id", f"{target}.id"],
        name=f"fk_{table}_org_id_{column}_{target}",
        ondelete="RESTRICT",
    )


def _create_tables() -> None:
    op.create_table(
        "credential",
        sa.Column(
            "user_id",
            ID,
            sa.ForeignKey(
                "app_user.id", ondelete="RESTRICT", name="fk_credential_user_id_app_user"
            ),
            primary_key=True,
        ),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("password_changed_at", TIMESTAMP, nullable=False),
        sa.Column("totp_secret", sa.String(64)),
        sa.Column("totp_pending_secret", sa.String(64)),
        sa.Column("totp_enabled_at", TIMESTAMP),
        sa.Column("totp_last_step", ID),
        sa.Column("recovery_codes", sa.JSON(), nullable=False),
    )
    op.create_table(
        "account_token",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "user_id",
            ID,
            sa.ForeignKey(
                "app_user.id", ondelete="RESTRICT", name="fk_account_token_user_id_app_user"
            ),
            nullable=False,
        ),
        sa.Column("purpose", sa.String(20), nullable=False),
        sa.Column("selector", sa.String(64), nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("used_at", TIMESTAMP),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("selector", name="uq_account_token_selector"),
        sa.CheckConstraint("purpose IN ('password_reset')", name="ck_account_token_purpose"),
    )
    op.create_index("ix_account_token_user_id", "account_token", ["user_id"])
    op.create_table(
        "invitation",
        sa.Column("id", ID, primary_key=True),
        _org_id("invitation"),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.Column("invited_by", ID),
        sa.Column("selector", sa.String(64), nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("sent_at", TIMESTAMP, nullable=False),
        sa.Column("send_count", ID, server_default=sa.text("1"), nullable=False),
        sa.Column("accepted_at", TIMESTAMP),
        sa.Column("member_id", ID),
        sa.Column("revoked_at", TIMESTAMP),
        sa.Column("revoked_by", ID),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_invitation_org_id_id"),
        sa.UniqueConstraint("selector", name="uq_invitation_selector"),
        _fk("invitation", "invited_by", "membership"),
        _fk("invitation", "revoked_by", "membership"),
        _fk("invitation", "member_id", "membership"),
    )
    op.create_index(
        "ix_invitation_open_email",
        "invitation",
        ["org_id", "email"],
        unique=True,
        postgresql_where=sa.text("accepted_at IS NULL AND revoked_at IS NULL"),
        sqlite_where=sa.text("accepted_at IS NULL AND revoked_at IS NULL"),
    )
    op.create_table(
        "seat_reservation",
        sa.Column("id", ID, primary_key=True),
        _org_id("seat_reservation"),
        sa.Column("invitation_id", ID, nullable=False),
        sa.Column("position_id", ID, nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("settled_at", TIMESTAMP),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_seat_reservation_org_id_id"),
        _fk("seat_reservation", "position_id", "position"),
        _fk("seat_reservation", "invitation_id", "invitation"),
        sa.CheckConstraint("kind IN ('primary', 'secondary')", name="ck_seat_reservation_kind"),
        sa.UniqueConstraint(
            "org_id",
            "invitation_id",
            "position_id",
            "kind",
            name="uq_seat_reservation_org_id_invitation_id_position_id_kind",
        ),
    )
    op.create_table(
        "import_job",
        sa.Column("id", ID, primary_key=True),
        _org_id("import_job"),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("rows", ID, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("started_at", TIMESTAMP),
        sa.Column("created_by", ID, nullable=False),
        sa.Column("created", ID, server_default=sa.text("0"), nullable=False),
        sa.Column("updated", ID, server_default=sa.text("0"), nullable=False),
        sa.Column("invited", ID, server_default=sa.text("0"), nullable=False),
        sa.Column("problems", sa.JSON(), nullable=False),
        sa.Column("failure", sa.String(63)),
        sa.Column("finished_at", TIMESTAMP),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_import_job_org_id_id"),
        _fk("import_job", "created_by", "membership"),
        sa.CheckConstraint("kind IN ('units', 'positions', 'members')", name="ck_import_job_kind"),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')", name="ck_import_job_status"
        ),
    )


def _sqlite_set_delete_action(old: str, new: str) -> None:
    """SQLite keeps a table's foreign keys in its CREATE TABLE text, and the ON DELETE
    action does not change how rows are stored: the documented way to change it is to
    edit that text (https://sqlite.org/lang_altertable.html, "other kinds of table
    schema changes"), which keeps the tables, their rows and their triggers."""
    bind = op.get_bind()
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    bind.exec_driver_sql(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table'",
        (f"ON DELETE {old}", f"ON DELETE {new}"),
    )
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")


def _set_delete_action(action: str) -> None:
    for table, name, columns, target, target_columns in CASCADING_KEYS:
        op.drop_constraint(name, table, type_="foreignkey")
        op.create_foreign_key(name, table, target, columns, target_columns, ondelete=action)


def _sqlite_append_only_triggers(*, cascade_passes: bool) -> None:
    condition = "WHEN EXISTS (SELECT 1 FROM organization WHERE id = OLD.org_id) "
    for table in APPEND_ONLY:
        op.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
        op.execute(
            f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
            f"{condition if cascade_passes else ''}"
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: DELETE refused'); END"
        )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    postgres = dialect == "postgresql"
    op.add_column(
        "organization",
        sa.Column(
            "require_admin_two_factor", sa.Boolean(), server_default=sa.false(), nullable=False
        ),
    )
    op.add_column("organization", sa.Column("archived_at", TIMESTAMP))
    op.add_column("membership", sa.Column("left_at", TIMESTAMP))
    _create_tables()
    # Every account keeps the password it has; the hash moves to its own table.
    op.execute(
        "INSERT INTO credential (user_id, password_hash, password_changed_at, recovery_codes) "
        "SELECT id, password_hash, created_at, '[]' FROM app_user"
    )
    with op.batch_alter_table("app_user") as batch:
        batch.drop_column("password_hash")
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("org_id", existing_type=ID, nullable=True)
        batch.add_column(sa.Column("dead_at", TIMESTAMP))

    if postgres:
        _set_delete_action("RESTRICT")
        op.execute(REFUSE_CHANGE_FUNCTION)
        for table in PLATFORM_TABLES:
            for statement in platform_policy_sql(table):
                op.execute(statement)
        for table in NEW_TENANT_TABLES:
            for statement in tenant_policy_sql(table):
                op.execute(statement)
        for statement in outbox_policy_sql():
            op.execute(statement)
    else:
        _sqlite_set_delete_action("CASCADE", "RESTRICT")
        _sqlite_append_only_triggers(cascade_passes=False)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    postgres = dialect == "postgresql"
    if postgres:
        both = "org_id = NULLIF(current_setting('app.current_org', true), '')::bigint"
        op.execute("DROP POLICY IF EXISTS tenant_isolation ON outbox")
        op.execute(f"CREATE POLICY tenant_isolation ON outbox USING ({both}) WITH CHECK ({both})")
        for table in reversed(NEW_TENANT_TABLES):
            for statement in drop_tenant_policy_sql(table):
                op.execute(statement)
        for table in reversed(PLATFORM_TABLES):
            for statement in drop_platform_policy_sql(table):
                op.execute(statement)
        op.execute(_REFUSE_CHANGE_BUT_ORG_CASCADE)
        _set_delete_action("CASCADE")
    else:
        _sqlite_append_only_triggers(cascade_passes=True)
        _sqlite_set_delete_action("RESTRICT", "CASCADE")

    # Account events have no organization to go back to: they are dropped with the
    # account tables they are about.
    op.execute("DELETE FROM outbox WHERE org_id IS NULL")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("dead_at")
        batch.alter_column("org_id", existing_type=ID, nullable=False)
    with op.batch_alter_table("app_user") as batch:
        batch.add_column(
            sa.Column("password_hash", sa.String(255), server_default="", nullable=False)
        )
    op.execute(
        "UPDATE app_user SET password_hash = "
        "(SELECT c.password_hash FROM credential c WHERE c.user_id = app_user.id)"
    )
    with op.batch_alter_table("app_user") as batch:
        batch.alter_column("password_hash", existing_type=sa.String(255), server_default=None)
    op.drop_table("import_job")
    op.drop_table("seat_reservation")
    op.drop_index("ix_invitation_open_email", table_name="invitation")
    op.drop_table("invitation")
    op.drop_index("ix_account_token_user_id", table_name="account_token")
    op.drop_table("account_token")
    op.drop_table("credential")
    op.drop_column("membership", "left_at")
    op.drop_column("organization", "archived_at")
    op.drop_column("organization", "require_admin_two_factor")
