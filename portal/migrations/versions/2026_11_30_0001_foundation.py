"""Foundation: organizations, users, memberships and the org chart, with tenant RLS.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from portal.core.rls import drop_tenant_policy_sql, tenant_policy_sql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
TENANT_TABLES = ("membership", "org_unit", "position", "position_holding")


def _org_id(table: str) -> sa.Column:
    return sa.Column(
        "org_id",
        ID,
        sa.ForeignKey(
            "organization.id", ondelete="CASCADE", name=f"fk_{table}_org_id_organization"
        ),
        nullable=False,
    )


def _tenant_fk(column: str, table: str, **kw: Any) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["org_id", column], [f"{table}.org_id", f"{table}.id"], **kw)


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"

    op.create_table(
        "organization",
        sa.Column("id", ID, primary_key=True),
        sa.Column("slug", sa.String(63), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("base_currency", sa.String(3), nullable=False),
        sa.Column("default_locale", sa.String(8), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("slug", name="uq_organization_slug"),
    )
    op.create_table(
        "app_user",
        sa.Column("id", ID, primary_key=True),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("locale", sa.String(8)),
        sa.Column("active", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("session_version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("email", name="uq_app_user_email"),
    )
    op.create_table(
        "membership",
        sa.Column("id", ID, primary_key=True),
        _org_id("membership"),
        sa.Column(
            "user_id",
            ID,
            sa.ForeignKey("app_user.id", ondelete="CASCADE", name="fk_membership_user_id_app_user"),
            nullable=False,
        ),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_membership_org_id_id"),
        sa.UniqueConstraint("org_id", "user_id", name="uq_membership_org_id_user_id"),
    )
    op.create_index("ix_membership_user_id", "membership", ["user_id"])

    unit_constraints: list[sa.Constraint] = [
        sa.UniqueConstraint("org_id", "id", name="uq_org_unit_org_id_id"),
        sa.UniqueConstraint("org_id", "code", name="uq_org_unit_org_id_code"),
        _tenant_fk("parent_id", "org_unit", name="fk_org_unit_org_id_parent_id_org_unit"),
    ]
    if not postgres:
        # SQLite cannot add a constraint later; it accepts a key to a table to come.
        unit_constraints.append(
            _tenant_fk("head_position_id", "position", name="fk_org_unit_head_position")
        )
    op.create_table(
        "org_unit",
        sa.Column("id", ID, primary_key=True),
        _org_id("org_unit"),
        sa.Column("code", sa.String(40), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("parent_id", ID),
        sa.Column("head_position_id", ID),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        *unit_constraints,
    )
    op.create_table(
        "position",
        sa.Column("id", ID, primary_key=True),
        _org_id("position"),
        sa.Column("code", sa.String(40), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("unit_id", ID, nullable=False),
        sa.Column("reports_to_id", ID),
        sa.Column("active", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_position_org_id_id"),
        sa.UniqueConstraint("org_id", "code", name="uq_position_org_id_code"),
        _tenant_fk("unit_id", "org_unit", name="fk_position_org_id_unit_id_org_unit"),
        _tenant_fk("reports_to_id", "position", name="fk_position_org_id_reports_to_id_position"),
        sa.CheckConstraint(
            "reports_to_id IS NULL OR reports_to_id <> id", name="ck_position_not_own_superior"
        ),
    )
    if postgres:
        op.create_foreign_key(
            "fk_org_unit_head_position",
            "org_unit",
            "position",
            ["org_id", "head_position_id"],
            ["org_id", "id"],
        )
    op.create_table(
        "position_holding",
        sa.Column("id", ID, primary_key=True),
        _org_id("position_holding"),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("position_id", ID, nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("valid_to", sa.Date()),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_position_holding_org_id_id"),
        _tenant_fk(
            "member_id",
            "membership",
            ondelete="CASCADE",
            name="fk_position_holding_org_id_member_id_membership",
        ),
        _tenant_fk(
            "position_id",
            "position",
            ondelete="CASCADE",
            name="fk_position_holding_org_id_position_id_position",
        ),
        sa.CheckConstraint("kind IN ('primary', 'secondary')", name="ck_position_holding_kind"),
        sa.CheckConstraint(
            "valid_to IS NULL OR valid_to >= valid_from", name="ck_position_holding_dates_ordered"
        ),
    )
    op.create_index("ix_position_holding_position", "position_holding", ["org_id", "position_id"])
    op.create_index("ix_position_holding_member", "position_holding", ["org_id", "member_id"])

    if postgres:
        for table in TENANT_TABLES:
            for statement in tenant_policy_sql(table):
                op.execute(statement)
        # The org switcher lists a signed-in user's own memberships across organizations.
        op.execute(
            "CREATE POLICY own_memberships ON membership FOR SELECT "
            "USING (user_id = NULLIF(current_setting('app.current_user', true), '')::bigint)"
        )


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.execute("DROP POLICY IF EXISTS own_memberships ON membership")
        for table in reversed(TENANT_TABLES):
            for statement in drop_tenant_policy_sql(table):
                op.execute(statement)
        op.drop_constraint("fk_org_unit_head_position", "org_unit", type_="foreignkey")
    op.drop_index("ix_position_holding_member", table_name="position_holding")
    op.drop_index("ix_position_holding_position", table_name="position_holding")
    op.drop_table("position_holding")
    if not postgres:
        # The two tables reference each other; let SQLite drop them in either order.
        op.execute("PRAGMA foreign_keys=OFF")
    op.drop_table("position")
    op.drop_table("org_unit")
    op.drop_index("ix_membership_user_id", table_name="membership")
    op.drop_table("membership")
    op.drop_table("app_user")
    op.drop_table("organization")
