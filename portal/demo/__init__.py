"""The demo organization ``acme``: a believable chart of thirteen people.

The expense claim has exclusive approval, and the chart lets Sales claims show it off:
Siti and Jason report to Nurul (Sales Manager), who reviews; Zainal heads Sales and
approves; four admins (Aisha, Grace and, in Finance, Daniel and Mei Ling) commit and pay
— one commits, another pays. Hannah's claims (HR) are reviewed by Grace and approved by
Aisha, so Finance commits and pays them. Claims of those who report straight to their
unit's head (the heads themselves, Grace, Ravi, Mei Ling, Ops) would need the same
person twice: the flow's page warns about them.

With its history (``portal demo``), ``acme`` also gets ten weeks of documents played
through the real services (``demo.stories``, ``demo.history``): claims paid, rejected,
reworked and disputed, requests decided, and some still waiting, a few overdue — so the
auditor, the inbox and the charts have something to show. Tests seed the people alone.

Seeding is idempotent: when ``acme`` exists nothing is touched, so an admin's edits in
the demo survive every restart.
"""

from __future__ import annotations

from dataclasses import dataclass

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.core.outbox import dispatch_outbox
from portal.demo.history import SET_UP_DAYS_BEFORE, moved_back, play_stories, worker_paused
from portal.domain.actor import Role, SystemActor
from portal.orgchart import services as chart
from portal.provisioning import provision_organization

DEMO_SLUG = "acme"
DEMO_PASSWORD = "countersign-demo"  # noqa: S105 - documented demo credential


@dataclass(frozen=True)
class DemoPerson:
    email: str
    name: str
    position: str
    roles: tuple[str, ...] = ()


UNITS = (
    # code, name, parent
    ("EXEC", "Executive Office", None),
    ("FIN", "Finance", "EXEC"),
    ("OPS", "Operations", "EXEC"),
    ("SALES", "Sales", "EXEC"),
)
POSITIONS = (
    # code, title, unit, reports to, heads its unit
    ("CEO", "Chief Executive Officer", "EXEC", None, True),
    ("OFFICE-MGR", "Office Manager", "EXEC", "CEO", False),
    ("HR", "HR Officer", "EXEC", "OFFICE-MGR", False),
    ("AUDIT", "Internal Auditor", "EXEC", "CEO", False),
    ("CFO", "Chief Financial Officer", "FIN", "CEO", True),
    ("FIN-CLERK", "Finance Clerk", "FIN", "CFO", False),
    ("OPS-HEAD", "Head of Operations", "OPS", "CEO", True),
    ("OPS-ANALYST", "Operations Analyst", "OPS", "OPS-HEAD", False),
    ("OPS-COORD", "Operations Coordinator", "OPS", "OPS-HEAD", False),
    ("SALES-DIR", "Sales Director", "SALES", "CEO", True),
    ("SALES-MGR", "Sales Manager", "SALES", "SALES-DIR", False),
    ("SALES-EXEC-1", "Sales Executive", "SALES", "SALES-MGR", False),
    ("SALES-EXEC-2", "Sales Executive", "SALES", "SALES-MGR", False),
)
PEOPLE = (
    DemoPerson("aisha@acme.example", "Aisha Rahman", "CEO", (Role.ADMIN,)),
    DemoPerson("grace@acme.example", "Grace Lee", "OFFICE-MGR", (Role.ADMIN,)),
    DemoPerson("hannah@acme.example", "Hannah Ong", "HR"),
    DemoPerson("ravi@acme.example", "Ravi Kumar", "AUDIT", (Role.AUDITOR,)),
    # Finance commits and pays claims: an admin's steps in the seeded expense claim.
    DemoPerson("daniel@acme.example", "Daniel Tan", "CFO", (Role.ADMIN,)),
    DemoPerson("meiling@acme.example", "Chen Mei Ling", "FIN-CLERK", (Role.ADMIN,)),
    DemoPerson("farid@acme.example", "Farid Ismail", "OPS-HEAD"),
    DemoPerson("priya@acme.example", "Priya Nair", "OPS-ANALYST"),
    DemoPerson("weijie@acme.example", "Lim Wei Jie", "OPS-COORD"),
    DemoPerson("zainal@acme.example", "Zainal Abidin", "SALES-DIR"),
    DemoPerson("nurul@acme.example", "Nurul Huda", "SALES-MGR"),
    DemoPerson("jason@acme.example", "Jason Wong", "SALES-EXEC-1"),
    DemoPerson("siti@acme.example", "Siti Aminah", "SALES-EXEC-2"),
)


def seed_demo(*, history: bool = False) -> bool:
    """Create ``acme`` with its chart and people, and with ``history`` its documents of
    the last ten weeks. Returns False when it already exists."""
    if account_queries.find_organization(DEMO_SLUG) is not None:
        return False
    if not history:
        _seed_people()
        return True
    # Set up before the first story, so the seats are held on the days they route.
    with worker_paused(), moved_back(SET_UP_DAYS_BEFORE) as now:
        _seed_people()
        play_stories(DEMO_SLUG, now)
        # The history's notices are delivered now, while nothing else writes: left to
        # the server, a backlog of weeks-old notices would be relayed beside the first
        # person's clicks (on SQLite, one writer at a time).
        _deliver_history_notices()
    return True


def _deliver_history_notices() -> None:
    org = account_queries.find_organization(DEMO_SLUG)
    assert org is not None
    while dispatch_outbox(org.id) or dispatch_outbox(None):
        pass


def _seed_people() -> None:
    org = provision_organization(
        DEMO_SLUG,
        "Acme Trading Sdn Bhd",
        base_currency="MYR",
        time_zone="Asia/Kuala_Lumpur",
        territory="MY",
    )
    system = SystemActor(org_id=org.id, org_slug=org.slug)
    unit_ids: dict[str, int] = {}
    for code, name, parent in UNITS:
        unit_ids[code] = chart.create_unit(
            system, code=code, name=name, parent_id=unit_ids.get(parent) if parent else None
        ).id
    position_ids: dict[str, int] = {}
    heads: dict[str, int] = {}
    for code, title, unit, superior, is_head in POSITIONS:
        position_ids[code] = chart.create_position(
            system,
            code=code,
            title=title,
            unit_id=unit_ids[unit],
            reports_to_id=position_ids[superior] if superior else None,
        ).id
        if is_head:
            heads[unit] = position_ids[code]
    for code, name, parent in UNITS:
        chart.update_unit(
            system,
            unit_ids[code],
            code=code,
            name=name,
            parent_id=unit_ids.get(parent) if parent else None,
            head_position_id=heads.get(code),
        )
    for person in PEOPLE:
        if account_queries.find_user(person.email) is None:
            accounts.create_user(person.email, person.name, DEMO_PASSWORD)
        member = accounts.enrol_member(system, email=person.email, roles=person.roles)
        chart.assign_position(
            system, member_id=member.id, position_id=position_ids[person.position]
        )
