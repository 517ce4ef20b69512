"""The organization `portal bench decisions` works in: the teams of `bench transitions`
(staff under a lead under a head), a finance seat, and a three-step flow drawn the way
the other engines' benchmarks draw theirs — draft → manager → finance → done, the
requester's superior deciding the first step and the finance seat the second.

Its finished history can be multiplied by copying finished documents row for row (their
decisions and tasks with them), so that a decision can be timed against an organization
with ten or a hundred times the history.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import create_engine, pool, text

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.bench.transitions import PER_TEAM, TEAMS, build_world
from portal.core.uow import unit_of_work
from portal.domain.actor import Actor, SystemActor
from portal.domain.graph import Gate, Grant, Grantee, GranteeKind, Graph, PostingOrder, StateRole
from portal.flows.seeded.parts import APPROVE, REJECT, SUBMIT, go, grant, labels, state
from portal.flows.services.publishing import append_version_in
from portal.orgchart import services as chart

KIND = "bench_approval"
FIRST, SECOND = "manager", "finance"


@dataclass(frozen=True)
class FlowSpec:
    """A flow the benchmark times: its kind, each step's transition and the state it is
    taken from, who takes it (a role in the world) and what a new document carries."""

    kind: str
    steps: tuple[tuple[str, str, str], ...]
    finished: str  # the state the last step leads to
    fields: tuple[tuple[str, str], ...] = ()


THREE_STEP = FlowSpec(
    KIND,
    (
        ("submit", "draft", "requester"),
        ("approve", FIRST, "superior"),
        ("approve", SECOND, "finance"),
    ),
    "done",
)
# The seeded expense claim's first three steps: its lead reviews, its head approves.
EXPENSE_CLAIM = FlowSpec(
    "expense_claim",
    (
        ("submit", "draft", "requester"),
        ("review", "pending_review", "superior"),
        ("approve", "reviewed", "head"),
    ),
    "approved",
    (("category", "travel"), ("expense_date", "2026-11-20")),
)


def three_step_graph(finance_position: int) -> Graph:
    """draft → manager → finance → done (either step may reject)."""
    return Graph(
        kind=KIND,
        labels=labels("Approval", "审批", "Kelulusan"),
        posting_order=PostingOrder.ACCRUAL_FIRST,
        states=(
            state("draft", labels("Draft", "草稿", "Draf"), StateRole.DRAFT, 40, 200),
            state(FIRST, labels("Manager", "经理", "Pengurus"), StateRole.PENDING, 240, 200),
            state(SECOND, labels("Finance", "财务", "Kewangan"), StateRole.PENDING, 440, 200),
            state(
                "done", labels("Done", "完成", "Selesai"), StateRole.CUSTOM, 640, 120, terminal=True
            ),
            state(
                "rejected",
                labels("Rejected", "已拒绝", "Ditolak"),
                StateRole.REJECTED,
                640,
                300,
                terminal=True,
            ),
        ),
        transitions=(
            go("submit", "draft", FIRST, Gate.REQUESTER, SUBMIT, 1),
            go("approve", FIRST, SECOND, Gate.TARGET, APPROVE, 1),
            go("reject", FIRST, "rejected", Gate.ADVANCE, REJECT, 2),
            go("approve", SECOND, "done", Gate.TARGET, APPROVE, 1),
            go("reject", SECOND, "rejected", Gate.ADVANCE, REJECT, 2),
        ),
        grants=(
            grant(SECOND, GranteeKind.SUPERIOR),
            Grant(
                state="done", grantee=Grantee(kind=GranteeKind.POSITION, position=finance_position)
            ),
        ),
    ).normalised()


@dataclass(frozen=True)
class DecisionWorld:
    slug: str
    org_id: int
    requesters: list[Actor]
    superiors: dict[int, Actor]  # requester member id -> their superior
    heads: dict[int, Actor]  # requester member id -> their unit's head
    finance: Actor
    # Everyone's sign-in address by member id, and the password they all share.
    emails: dict[int, str]
    password: str

    def decider(self, role: str, requester: Actor) -> Actor:
        """Who plays ``role`` (a FlowSpec step's) on a document ``requester`` raised."""
        if role == "requester":
            return requester
        if role == "finance":
            return self.finance
        return (self.superiors if role == "superior" else self.heads)[requester.member_id]


def build_decision_world(
    prefix: str = "bench-", teams: int = TEAMS, per_team: int = PER_TEAM
) -> DecisionWorld:
    world = build_world(prefix, teams, per_team)
    system = SystemActor(org_id=world.org_id, org_slug=world.slug)
    seat = chart.create_position(system, code="FIN", title="Finance", unit_id=world.executive_unit)
    email = f"finance@{world.slug}.test"
    accounts.create_user(email, "Finance Officer", PASSWORD)
    accounts.enrol_member(system, email=email)
    user = account_queries.find_user(email)
    assert user is not None
    finance = account_queries.actor_for(world.slug, user.id, None)
    assert finance is not None
    chart.assign_position(system, member_id=finance.member_id, position_id=seat.id)
    with unit_of_work(world.org_id) as uow:
        append_version_in(uow.session, three_step_graph(seat.id), published_by=None)
    return DecisionWorld(
        world.slug,
        world.org_id,
        world.requesters,
        world.superiors,
        world.heads,
        finance,
        {**world.emails, finance.member_id: email},
        PASSWORD,
    )


PASSWORD = "bench-pass-123"  # noqa: S105 - throwaway accounts, removed afterwards
AMOUNT = Decimal("120.00")


def multiply_history(owner_url: str, org_id: int, state: str, copies: int) -> int:
    """Copy every document of the organization that stands in ``state`` ``copies``
    times, with its decisions and tasks, as the schema owner; returns how many
    documents were added. The copies are history only: nobody is notified of them."""
    if copies <= 0:
        return 0
    engine = create_engine(owner_url, poolclass=pool.NullPool)
    try:
        if engine.dialect.name != "postgresql":
            raise ValueError("history is multiplied on PostgreSQL only")
        with engine.begin() as conn:
            conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org_id)})
            return _copy(conn, {"o": org_id, "state": state, "k": copies})
    finally:
        engine.dispose()


def _columns(prefix: str, columns: str) -> str:
    return ", ".join(f"{prefix}.{c.strip()}" for c in columns.split(","))


_DOCUMENT_COLUMNS = (
    "org_id, kind, title, description, amount, currency, fields, requester_id,"
    " flow_version_id, version, state, state_entered_at, dispute_raiser_id, row_version,"
    " chain_seq, chain_hash, created_at, updated_at"
)
_DECISION_COLUMNS = (
    "seq, flow_version_id, from_state, to_state, transition, gate, actor_id,"
    " authority_member_id, via, delegation_id, amount, currency, winning_floor, eligible,"
    " resolution, comment, request_id, decided_at, prev_hash, hash"
)
_TASK_COLUMNS = (
    "state, assignee_id, via, transitions, band_floor, due_at, status, completed_at,"
    " completed_by, created_at, level"
)
# Copy number g of original o gets a new id from the sequence up front, so that its
# decisions and tasks join on the original's id (a handful of rows), never on the
# copies: one statement, planned well whatever the statistics know of the copies.
_COPY = (
    "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < :k),"  # noqa: S608
    " src AS (SELECT o.id AS old_id, nextval('document_id_seq') AS new_id,"
    " o.reference || '-H' || g.n AS new_reference, o.* FROM document o CROSS JOIN g"
    " WHERE o.org_id = :o AND o.state = :state AND o.reference NOT LIKE '%-H%'),"
    f" docs AS (INSERT INTO document (id, reference, {_DOCUMENT_COLUMNS})"
    f" SELECT new_id, new_reference, {_columns('src', _DOCUMENT_COLUMNS)} FROM src),"
    f" decisions AS (INSERT INTO decision (org_id, document_id, {_DECISION_COLUMNS})"
    f" SELECT src.org_id, src.new_id, {_columns('c', _DECISION_COLUMNS)} FROM src"
    " JOIN decision c ON c.org_id = src.org_id AND c.document_id = src.old_id),"
    f" tasks AS (INSERT INTO task (org_id, document_id, {_TASK_COLUMNS})"
    f" SELECT src.org_id, src.new_id, {_columns('c', _TASK_COLUMNS)} FROM src"
    " JOIN task c ON c.org_id = src.org_id AND c.document_id = src.old_id)"
    " SELECT count(*) FROM src"
)


def _copy(conn: Any, params: dict[str, Any]) -> int:
    return int(conn.scalar(text(_COPY), params))
