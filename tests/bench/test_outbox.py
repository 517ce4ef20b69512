"""`portal bench outbox` runs end to end — one worker process, in-app notices and mail
to its own SMTP server — and cleans up after itself (figures go in the README)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from portal.bench.outbox import PREFIX, bench_outbox


def test_the_outbox_benchmark_delivers_every_notice_and_mail_and_leaves_nothing_behind(
    backend, settings, committed
):
    if not backend.postgres:
        pytest.skip("a worker process needs PostgreSQL and a Redis shared between processes")
    lines: list[str] = []
    figures = bench_outbox(settings, notices=6, mails=4, rounds=2, progress=lines.append)

    assert len(figures.rounds) == 2
    for measured in figures.rounds:
        # Every event became one notification, and every mailed one a mail.
        assert (measured.notifications, measured.mails) == (10, 4)
        assert measured.per_second > 0
    assert figures.low_per_second <= figures.median_per_second <= figures.high_per_second
    owner = create_engine(backend.owner_url)
    with owner.connect() as conn:
        assert (
            conn.scalar(
                text("SELECT count(*) FROM organization WHERE slug LIKE :p"), {"p": PREFIX + "%"}
            )
            == 0
        )
        assert (
            conn.scalar(
                text("SELECT count(*) FROM app_user WHERE email LIKE :p"), {"p": f"%@{PREFIX}%"}
            )
            == 0
        )
    owner.dispose()
