"""Out-of-office cover and the handover of a task.

- ``delegation``: a member's authority lent to another for whole days of the
  organization's zone (both included), optionally for one kind of document, with a
  reason, who set it (the delegator or an admin), and its revocation; never deleted
  (a decision names it). Row-level security like every organization's table.
- ``decision``: the delegation a decision was taken under is a composite tenant
  foreign key, and a check ties it to ``via``: a decision ``via = 'delegation'`` names
  one, and no other decision does; a partial index finds a cover's decisions (the
  summary its delegator gets when it ends).

SQLite keeps a table's constraints in its CREATE TABLE text; the decision history is
append-only behind triggers, and rebuilding it would drop them, so the constraint and
the key are added to that text in place (https://sqlite.org/lang_altertable.html,
"other kinds of table schema changes") — the rows already satisfy both: no decision so
far was taken under a delegation.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from portal.core.rls import drop_tenant_policy_sql, tenant_policy_sql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
_CHECK_NAME = "ck_decision_delegation_named"
_CHECK_SQL = "(via = 'delegation') = (delegation_id IS NOT NULL)"
_FK_NAME = "fk_decision_org_id_delegation_id_delegation"
_NAMED = "delegation_id IS NOT NULL"
_SQLITE_CLAUSES = (
    f", CONSTRAINT {_CHECK_NAME} CHECK ({_CHECK_SQL})"
    f", CONSTRAINT {_FK_NAME} FOREIGN KEY(org_id, delegation_id)"
    " REFERENCES delegation (org_id, id) ON DELETE RESTRICT"
)


def _tenant_fk(column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", column],
        ["membership.org_id", "membership.id"],
        name=f"fk_delegation_org_id_{column}_membership",
        ondelete="RESTRICT",
    )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "delegation",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "org_id",
            ID,
            sa.ForeignKey(
                "organization.id", ondelete="RESTRICT", name="fk_delegation_org_id_organization"
            ),
            nullable=False,
        ),
        sa.Column("delegator_id", ID, nullable=False),
        sa.Column("delegate_id", ID, nullable=False),
        sa.Column("kind", sa.String(63)),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("valid_to", sa.Date(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_by", ID, nullable=False),
        sa.Column("revoked_at", TIMESTAMP),
        sa.Column("revoked_by", ID),
        sa.Column("start_noticed_at", TIMESTAMP),
        sa.Column("end_noticed_at", TIMESTAMP),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_delegation_org_id_id"),
        _tenant_fk("delegator_id"),
        _tenant_fk("delegate_id"),
        _tenant_fk("created_by"),
        _tenant_fk("revoked_by"),
        sa.CheckConstraint("delegator_id <> delegate_id", name="ck_delegation_not_to_oneself"),
        sa.CheckConstraint("valid_to >= valid_from", name="ck_delegation_window"),
        sa.CheckConstraint(
            "(revoked_at IS NULL) = (revoked_by IS NULL)", name="ck_delegation_revoked_by_someone"
        ),
    )
    op.create_index("ix_delegation_delegate", "delegation", ["org_id", "delegate_id", "valid_to"])
    op.create_index("ix_delegation_delegator", "delegation", ["org_id", "delegator_id", "valid_to"])
    op.create_index(
        "ix_decision_delegation",
        "decision",
        ["org_id", "delegation_id"],
        postgresql_where=sa.text(_NAMED),
        sqlite_where=sa.text(_NAMED),
    )
    if dialect == "postgresql":
        for statement in tenant_policy_sql("delegation"):
            op.execute(statement)
        op.create_check_constraint(_CHECK_NAME, "decision", _CHECK_SQL)
        op.create_foreign_key(
            _FK_NAME,
            "decision",
            "delegation",
            ["org_id", "delegation_id"],
            ["org_id", "id"],
            ondelete="RESTRICT",
        )
    else:
        _sqlite_edit_decision(add=True)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.drop_constraint(_FK_NAME, "decision", type_="foreignkey")
        op.drop_constraint(_CHECK_NAME, "decision", type_="check")
        for statement in drop_tenant_policy_sql("delegation"):
            op.execute(statement)
    else:
        _sqlite_edit_decision(add=False)
    op.drop_index("ix_decision_delegation", table_name="decision")
    op.drop_index("ix_delegation_delegator", table_name="delegation")
    op.drop_index("ix_delegation_delegate", table_name="delegation")
    op.drop_table("delegation")


def _sqlite_edit_decision(*, add: bool) -> None:
    """Add the clauses before the closing parenthesis of ``decision``'s CREATE TABLE
    text, or take them out again, and bump the schema version so every connection
    rereads it."""
    bind = op.get_bind()
    sql = bind.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'decision'"
    ).scalar_one()
    if add:
        body = sql.rstrip()
        assert body.endswith(")"), "decision's CREATE TABLE text ends with its parenthesis"
        edited = body[:-1].rstrip() + _SQLITE_CLAUSES + "\n)"
    else:
        edited = sql.replace(_SQLITE_CLAUSES, "")
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    bind.exec_driver_sql(
        "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'decision'", (edited,)
    )
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")
