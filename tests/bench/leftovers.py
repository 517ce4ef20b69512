"""What a benchmark must not leave behind: its organizations and its accounts."""

from __future__ import annotations

from sqlalchemy import create_engine, text


def left_behind(owner_url: str) -> tuple[int, int]:
    """The benchmark organizations and accounts still in the database, as the schema
    owner sees them."""
    owner = create_engine(owner_url)
    try:
        with owner.connect() as conn:
            return (
                conn.scalar(text("SELECT count(*) FROM organization WHERE slug LIKE 'bench-%'")),
                conn.scalar(text("SELECT count(*) FROM app_user WHERE email LIKE '%@bench-%'")),
            )
    finally:
        owner.dispose()
