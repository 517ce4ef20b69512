"""``portal audit verify [--org SLUG]`` for operators: every chain of one organization or
of every one, a progress bar on stderr, a summary, each broken chain named with its
organization, reference and first bad sequence number; exit status 1 when any chain is
broken, 2 for an organization that does not exist; each pass stored as the command
line's, in its own organization."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from portal.cli import main
from portal.core.uow import unit_of_work
from tests.audit import chains
from tests.audit.chains import GLOBEX, World

world = chains.world  # the fixture

COMMENT = "UPDATE decision SET comment = 'Looks wrong' WHERE document_id = :doc AND seq = :seq"


@pytest.fixture
def cli(app):
    runner = app.test_cli_runner()

    def run(*args: str):
        return runner.invoke(main, list(args))

    return run


def _passes(org_id: int) -> list[tuple[str, int | None, int]]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.execute(
            text(
                "SELECT trigger, member_id, chains FROM chain_verification"
                " WHERE org_id = :o ORDER BY id"
            ),
            {"o": org_id},
        ).all()
    return [(r.trigger, r.member_id, r.chains) for r in rows]


def test_every_chain_of_one_organization_holds(world: World, cli):
    result = cli("audit", "verify", "--org", "acme")

    assert result.exit_code == 0, result.output
    assert "acme: 3 chain(s), 4 decision(s), 0 broken" in result.stdout
    assert "Verified 3 chain(s) in 1 organization(s): every chain holds." in result.stdout
    assert "acme: verifying" in result.stderr  # the progress bar's label
    assert GLOBEX not in result.stdout
    assert _passes(world.acme_id) == [("cli", None, 3)]
    assert _passes(world.globex_id) == []


def test_a_broken_chain_is_named_and_the_exit_status_is_one(world: World, cli):
    doc = world.approved
    world.tamper(world.acme_id, COMMENT, doc=doc.id, seq=2)

    result = cli("audit", "verify", "--org", "acme")

    assert result.exit_code == 1, result.output
    assert f"BROKEN acme {doc.reference}: first bad decision #2" in result.stdout
    assert "Verified 3 chain(s) in 1 organization(s): 1 broken." in result.stdout
    assert world.submitted.reference not in result.stdout


def test_every_organization_each_stored_in_its_own(world: World, cli):
    with unit_of_work(world.globex_id) as uow:
        doc_id, reference = uow.session.execute(
            text("SELECT id, reference FROM document WHERE org_id = :o ORDER BY id LIMIT 1"),
            {"o": world.globex_id},
        ).one()
    world.tamper(world.globex_id, COMMENT, doc=doc_id, seq=1)

    result = cli("audit", "verify")

    assert result.exit_code == 1, result.output
    assert "acme: 3 chain(s), 4 decision(s), 0 broken" in result.stdout
    assert f"{GLOBEX}: 2 chain(s), 2 decision(s), 1 broken" in result.stdout
    assert f"BROKEN {GLOBEX} {reference}: first bad decision #1" in result.stdout
    assert [line for line in result.stdout.splitlines() if line.startswith("BROKEN")] == [
        f"BROKEN {GLOBEX} {reference}: first bad decision #1"
    ]
    assert _passes(world.acme_id) == [("cli", None, 3)]
    assert _passes(world.globex_id) == [("cli", None, 2)]


@pytest.mark.parametrize(
    "slug", ["nowhere", "ACME", "acme\u200b", "ac\x00me", "<b>acme</b>", "x" * 5000]
)
def test_an_unknown_organization_is_said_and_the_exit_status_is_two(world: World, cli, slug):
    assert cli("audit", "verify", "--org", "acme").exit_code == 0  # the allowed case first

    result = cli("audit", "verify", "--org", slug)

    assert result.exit_code == 2
    assert f"there is no organization {slug[:80]!r}" in result.stderr
    assert _passes(world.acme_id) == [("cli", None, 3)]
