"""Time zones, exact money on SQLite, and the record of edits outside transitions.

- ``organization.time_zone`` (IANA, default UTC) and ``territory`` (the country whose
  date and money conventions its members read), ``membership.time_zone`` (a member's
  own choice).
- ``document.discarded_at``/``discarded_by``: a requester throws away a draft that was
  never submitted; the row stays (its reference stays taken).
- ``document_edit``: append-only, one row per edit of a draft's amount or fields (old
  -> new) and per discarding.
- SQLite only: amounts were stored in NUMERIC columns, which SQLite keeps as floats.
  They become fixed-width decimal text (``core.money_column``): exact, and ordered as
  the numbers are.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from portal.core.rls import (
    append_only_sql,
    drop_append_only_sql,
    drop_tenant_policy_sql,
    tenant_policy_sql,
)

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)

# (table, column) of every amount.
MONEY_COLUMNS = (
    ("document", "amount"),
    ("task", "band_floor"),
    ("decision", "amount"),
    ("decision", "winning_floor"),
)
_NUMERIC = "NUMERIC(19, 4)"
DISCARDED_BY_FK = "fk_document_org_id_discarded_by_membership"
_DISCARDED_BY_CLAUSE = (
    f", \n\tCONSTRAINT {DISCARDED_BY_FK} FOREIGN KEY(org_id, discarded_by) "
    "REFERENCES membership (org_id, id)"
)
_TEXT = "VARCHAR(20)"


def _create_document_edit() -> None:
    op.create_table(
        "document_edit",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "org_id",
            ID,
            sa.ForeignKey(
                "organization.id",
                ondelete="RESTRICT",
                name="fk_document_edit_org_id_organization",
            ),
            nullable=False,
        ),
        sa.Column("document_id", ID, nullable=False),
        sa.Column("actor_id", ID, nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.Column("request_id", sa.String(64)),
        sa.Column("edited_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_document_edit_org_id_id"),
        sa.ForeignKeyConstraint(
            ["org_id", "document_id"],
            ["document.org_id", "document.id"],
            name="fk_document_edit_org_id_document_id_document",
        ),
        sa.ForeignKeyConstraint(
            ["org_id", "actor_id"],
            ["membership.org_id", "membership.id"],
            name="fk_document_edit_org_id_actor_id_membership",
        ),
    )
    op.create_index(
        "ix_document_edit_document", "document_edit", ["org_id", "document_id", "edited_at"]
    )


def _edit_sqlite_schema(statements: list[tuple[str, tuple[str, ...]]]) -> None:
    """Run ``UPDATE sqlite_master`` statements: the documented way to change what SQLite
    cannot ALTER (https://sqlite.org/lang_altertable.html, "other kinds of table schema
    changes"), which keeps tables, rows, indexes and triggers as they are."""
    bind = op.get_bind()
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    for statement, parameters in statements:
        bind.exec_driver_sql(statement, parameters)
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")


def _sqlite_discarded_by_key(*, add: bool) -> None:
    """The composite key a new column cannot be given by ALTER TABLE (no row holds a
    value yet when it is added; it must be gone before the column can be dropped)."""
    if add:
        change = (
            "UPDATE sqlite_master SET sql = rtrim(rtrim(sql), ')') || ? || char(10) || ')' "
            "WHERE type = 'table' AND name = 'document'",
            (_DISCARDED_BY_CLAUSE,),
        )
    else:
        change = (
            "UPDATE sqlite_master SET sql = replace(sql, ?, '') "
            "WHERE type = 'table' AND name = 'document'",
            (_DISCARDED_BY_CLAUSE,),
        )
    _edit_sqlite_schema([change])


def _sqlite_money_columns(old: str, new: str) -> None:
    """Change the declared type of the amount columns by editing the schema text, so
    tables, rows, indexes and triggers stay; then rewrite each value in the new form.
    The decision history refuses updates, so its trigger steps aside for the rewrite."""
    _edit_sqlite_schema(
        [
            (
                "UPDATE sqlite_master SET sql = replace(sql, ?, ?) "
                "WHERE type = 'table' AND name = ?",
                (f"{column} {old}", f"{column} {new}", table),
            )
            for table, column in MONEY_COLUMNS
        ]
    )
    for statement in drop_append_only_sql("decision", "sqlite"):
        op.execute(statement)
    for table, column in MONEY_COLUMNS:
        # Text: fifteen digits, the point, four places (what core.money_column writes).
        text = f"printf('%020.4f', {column})"
        value = text if new == _TEXT else f"CAST({column} AS NUMERIC)"
        op.execute(f"UPDATE {table} SET {column} = {value} WHERE {column} IS NOT NULL")  # noqa: S608
    for statement in append_only_sql("decision", "sqlite"):
        op.execute(statement)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.add_column(
        "organization",
        sa.Column("time_zone", sa.String(64), server_default="UTC", nullable=False),
    )
    op.add_column("organization", sa.Column("territory", sa.String(2)))
    op.add_column("membership", sa.Column("time_zone", sa.String(64)))
    op.add_column("document", sa.Column("discarded_at", TIMESTAMP))
    op.add_column("document", sa.Column("discarded_by", ID))
    if dialect == "postgresql":
        op.create_foreign_key(
            DISCARDED_BY_FK,
            "document",
            "membership",
            ["org_id", "discarded_by"],
            ["org_id", "id"],
        )
    else:
        _sqlite_discarded_by_key(add=True)
    _create_document_edit()
    for statement in append_only_sql("document_edit", dialect):
        op.execute(statement)
    if dialect == "postgresql":
        for statement in tenant_policy_sql("document_edit"):
            op.execute(statement)
    else:
        _sqlite_money_columns(_NUMERIC, _TEXT)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for statement in drop_tenant_policy_sql("document_edit"):
            op.execute(statement)
        op.drop_constraint(DISCARDED_BY_FK, "document", type_="foreignkey")
    else:
        _sqlite_money_columns(_TEXT, _NUMERIC)
        _sqlite_discarded_by_key(add=False)
    for statement in drop_append_only_sql("document_edit", dialect):
        op.execute(statement)
    op.drop_index("ix_document_edit_document", table_name="document_edit")
    op.drop_table("document_edit")
    # Discarded drafts come back as drafts: the older schema has no way to hide them.
    for table, column in (
        ("document", "discarded_by"),
        ("document", "discarded_at"),
        ("membership", "time_zone"),
        ("organization", "territory"),
        ("organization", "time_zone"),
    ):
        _drop_column(table, column)


def _drop_column(table: str, column: str) -> None:
    """In place on both: a batch rebuild of SQLite's ``document`` or ``organization``
    would drop the triggers and keys that other tables hold on them."""
    if op.get_bind().dialect.name == "postgresql":
        op.drop_column(table, column)
    else:
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
