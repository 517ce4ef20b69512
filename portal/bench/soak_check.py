"""What `portal bench soak` proves once the load has stopped and the outbox has drained,
read from the database as the schema owner, one organization at a time as row-level
security expects:

- no decision lost or duplicated: a request whose answer said N decisions were made
  has exactly N decision rows carrying its request id, a refused one none, and one
  without an answer 0 or all of them — never another number; and no decision row of the
  run carries an id the load never sent;
- every hash chain verifies (the auditors' own verification);
- every committed notice reached each member it names once (in-app), and every mail was
  accepted by the SMTP server once per recipient (the Message-ID is the outbox row's);
  nothing is left undelivered or dead;
- no open task on a state its document has left;
- no row of one organization pointing at another's member.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, create_engine, pool, text

from portal.audit.services.verification import verify_organization
from portal.bench.soak_load import DecisionAsked
from portal.domain.actor import SystemActor

_MESSAGE_ID = re.compile(r"<outbox\.(\d+)\.(\d+)@")

# Rows that name a member, and the member column: each must be a member of the row's
# own organization (a member of another's would not be visible, so it would be missing).
_MEMBER_LINKS = (
    ("document", "requester_id"),
    ("task", "assignee_id"),
    ("decision", "actor_id"),
    ("notification", "member_id"),
)


@dataclass
class Check:
    name: str
    problems: list[str] = field(default_factory=list)
    counted: str = ""

    @property
    def passed(self) -> bool:
        return not self.problems


@dataclass
class Verdict:
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def wait_for_outbox(
    owner_url: str, orgs: list[tuple[int, str]], timeout: float, progress: Callable[[str], None]
) -> int:
    """Until no event of the organizations is waiting (the scheduler's relay and the
    retries deliver what the faults held up); returns how many still wait."""
    deadline = time.monotonic() + timeout
    waiting = -1
    while True:
        waiting = sum(_in_org(owner_url, org_id, _undelivered) for org_id, _ in orgs)
        if waiting == 0 or time.monotonic() > deadline:
            return waiting
        progress(f"  {waiting} outbox events still to deliver")
        time.sleep(5)


def _undelivered(conn: Connection, org_id: int) -> int:
    return int(
        conn.scalar(
            text("SELECT count(*) FROM outbox WHERE org_id = :o AND dispatched_at IS NULL"),
            {"o": org_id},
        )
        or 0
    )


def check_soak(
    owner_url: str,
    orgs: Iterable[tuple[int, str]],
    asked: list[DecisionAsked],
    received: collections.Counter[tuple[str, str]],
    since: datetime,
) -> Verdict:
    decisions, chains, notices, mail = (
        Check("decisions: none lost, none duplicated"),
        Check("hash chains verify"),
        Check("notices: each named member once"),
        Check("mail: each recipient once"),
    )
    tasks, tenants = Check("no open task on a state left"), Check("no cross-tenant row")
    by_org: dict[int, list[DecisionAsked]] = collections.defaultdict(list)
    for a in asked:
        by_org[a.org_id].append(a)
    mail_seen = _mail_received(received)
    totals = collections.Counter[str]()
    duplicate_mail = 0
    for org_id, slug in orgs:

        def read(conn: Connection, org_id: int) -> None:
            nonlocal duplicate_mail
            _decisions(conn, org_id, by_org[org_id], since, decisions, totals)
            _notices(conn, org_id, since, notices, totals)
            duplicate_mail += _mail(conn, org_id, since, mail_seen, mail, totals)
            _tasks(conn, org_id, tasks)
            _tenants(conn, org_id, tenants)

        _in_org(owner_url, org_id, read)
        summary = verify_organization(SystemActor(org_id=org_id, org_slug=slug), "cli")
        totals["chains"] += summary.chains
        chains.problems += [f"{slug}: {failure}" for failure in summary.failures]
    decisions.counted = (
        f"{totals['asked']} requests, {totals['made']} decisions made, "
        f"{totals['unanswered']} without an answer"
    )
    chains.counted = f"{totals['chains']} chains"
    notices.counted = f"{totals['notices']} notices from {totals['events']} events"
    mail.counted = f"{totals['mails']} mails, {duplicate_mail} received twice"
    return Verdict([decisions, chains, notices, mail, tasks, tenants])


def _in_org(owner_url: str, org_id: int, read: Callable[[Connection, int], object]) -> int:
    engine = create_engine(owner_url, poolclass=pool.NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT set_config('app.current_org', :o, true)"), {"o": str(org_id)})
            found = read(conn, org_id)
            return found if isinstance(found, int) else 0
    finally:
        engine.dispose()


def _decisions(
    conn: Connection,
    org_id: int,
    asked: list[DecisionAsked],
    since: datetime,
    check: Check,
    totals: collections.Counter[str],
) -> None:
    rows: dict[str, int] = dict(
        conn.execute(
            text(
                "SELECT coalesce(request_id, ''), count(*) FROM decision"
                " WHERE org_id = :o AND decided_at >= :since GROUP BY request_id"
            ),
            {"o": org_id, "since": since},
        ).all()
    )
    for a in asked:
        found = rows.pop(a.request_id, 0)
        totals["asked"] += 1
        totals["made"] += found
        if a.accepted is None:
            totals["unanswered"] += 1
            if found > a.asked:  # each of a bulk's items stands alone: any share of them
                check.problems.append(f"{a.request_id}: {a.asked} asked, {found} made")
        elif found != a.accepted:
            check.problems.append(
                f"{a.request_id}: answered {a.accepted} made, {found} in the history"
            )
    for request_id, count in rows.items():
        check.problems.append(f"{count} decisions of request {request_id!r}, which nobody sent")


def _notices(
    conn: Connection,
    org_id: int,
    since: datetime,
    check: Check,
    totals: collections.Counter[str],
) -> None:
    """Every notify event's named members each hold exactly one notice of it."""
    rows = conn.execute(
        text(
            "SELECT o.id, m.value::text::bigint AS member,"
            " (SELECT count(*) FROM notification n WHERE n.org_id = o.org_id"
            "  AND n.outbox_id = o.id AND n.member_id = m.value::text::bigint)"
            " FROM outbox o CROSS JOIN LATERAL json_array_elements(o.payload -> 'members') m"
            " WHERE o.org_id = :o AND o.topic LIKE 'notify.%' AND o.created_at >= :since"
        ),
        {"o": org_id, "since": since},
    ).all()
    totals["events"] += len({r[0] for r in rows})
    for event_id, member, count in rows:
        totals["notices"] += count
        if count != 1:
            check.problems.append(f"event {event_id}: member {member} holds {count} notices")
    dead = conn.scalar(
        text(
            "SELECT count(*) FROM outbox WHERE org_id = :o AND created_at >= :since"
            " AND dispatched_at IS NULL"
        ),
        {"o": org_id, "since": since},
    )
    if dead:
        check.problems.append(f"{dead} outbox events never delivered")


def _mail(
    conn: Connection,
    org_id: int,
    since: datetime,
    seen: dict[tuple[int, int], collections.Counter[str]],
    check: Check,
    totals: collections.Counter[str],
) -> int:
    ids = conn.scalars(
        text(
            "SELECT id FROM outbox WHERE org_id = :o AND topic LIKE 'mail.%'"
            " AND created_at >= :since AND dispatched_at IS NOT NULL"
        ),
        {"o": org_id, "since": since},
    ).all()
    twice = 0
    for outbox_id in ids:
        totals["mails"] += 1
        recipients = seen.get((outbox_id, org_id))
        if not recipients:
            check.problems.append(f"mail of outbox row {outbox_id} never reached the server")
            continue
        for recipient, count in recipients.items():
            if count > 1:
                twice += 1
                check.problems.append(f"mail {outbox_id} reached {recipient} {count} times")
    return twice


def _tasks(conn: Connection, org_id: int, check: Check) -> None:
    left = conn.scalar(
        text(
            "SELECT count(*) FROM task t JOIN document d"
            " ON d.org_id = t.org_id AND d.id = t.document_id"
            " WHERE t.org_id = :o AND t.status = 'open' AND t.state <> d.state"
        ),
        {"o": org_id},
    )
    if left:
        check.problems.append(f"org {org_id}: {left} open tasks on states their documents left")


def _tenants(conn: Connection, org_id: int, check: Check) -> None:
    for table, column in _MEMBER_LINKS:
        foreign = conn.scalar(
            text(
                f"SELECT count(*) FROM {table} r LEFT JOIN membership m"  # noqa: S608 - constant names
                f" ON m.org_id = r.org_id AND m.id = r.{column}"
                f" WHERE r.org_id = :o AND r.{column} IS NOT NULL AND m.id IS NULL"
            ),
            {"o": org_id},
        )
        if foreign:
            check.problems.append(f"org {org_id}: {foreign} {table} rows name another's member")


def _mail_received(
    received: collections.Counter[tuple[str, str]],
) -> dict[tuple[int, int], collections.Counter[str]]:
    """What the SMTP server accepted, by outbox row and organization."""
    seen: dict[tuple[int, int], collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    for (message_id, recipient), count in received.items():
        found = _MESSAGE_ID.search(message_id)
        if found:
            seen[(int(found.group(1)), int(found.group(2)))][recipient] += count
    return seen
