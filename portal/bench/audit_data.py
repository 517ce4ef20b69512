"""The audit benchmark's data set: organizations sized like real tenants (a few large,
most small), their members, the seeded flows, documents over two years and their
decisions with the real hash chain — generated in Python, one organization at a time,
the same every run (a seeded random generator per organization).

Pure generation: rows as tuples, in the column order ``DOCUMENT_COLUMNS`` and
``DECISION_COLUMNS`` name. ``audit_load`` writes them.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from portal.bench.audit_words import COMMENTS, FIRST, LAST, PLACES, THINGS
from portal.domain.chain import CHAINED_FIELDS, GENESIS_HASH, link_hash
from portal.domain.graph import Gate, Graph
from portal.flows.seeded import seeded_graphs

CURRENCY = "MYR"
# The largest organization holds about this share of all documents.
LARGEST_SHARE = 0.05
HISTORY_DAYS = 730
KINDS = ("expense_claim", "purchase_request", "leave_request")
KIND_WEIGHTS = (70, 20, 10)
PREFIXES = {"expense_claim": "EXP", "purchase_request": "PUR", "leave_request": "LVE"}
# How often a walk stops at a state it could leave, by its role: a paid claim is usually
# received, a rejected one often left there.
_STOP_AT = {"rejected": 0.25, "acknowledged": 0.75, "payout": 0.1}
# Share of approvers' decisions taken under cover, and past a vacant seat.
DELEGATED, ESCALATED = 0.04, 0.01

DOCUMENT_COLUMNS = [
    "id",
    "org_id",
    "kind",
    "reference",
    "title",
    "description",
    "amount",
    "currency",
    "fields",
    "requester_id",
    "flow_version_id",
    "version",
    "state",
    "state_entered_at",
    "dispute_raiser_id",
    "row_version",
    "chain_seq",
    "chain_hash",
    "created_at",
    "updated_at",
]
DECISION_COLUMNS = ["org_id", *CHAINED_FIELDS, "hash"]


def organization_sizes(documents: int, organizations: int) -> list[int]:
    """Documents per organization, largest first: Zipf-like weights k^-s, the exponent
    chosen so the largest holds about LARGEST_SHARE of the documents; every one holds
    at least one. Sums to ``documents`` exactly."""
    if organizations > documents:
        raise ValueError("fewer documents than organizations")

    def shares(s: float) -> list[float]:
        weights = [k**-s for k in range(1, organizations + 1)]
        total = sum(weights)
        return [w / total for w in weights]

    low, high = 0.0, 4.0
    for _ in range(40):
        middle = (low + high) / 2
        if shares(middle)[0] < LARGEST_SHARE:
            low = middle
        else:
            high = middle
    sizes = [max(1, int(documents * p)) for p in shares(low)]
    surplus = documents - sum(sizes)
    for k in range(abs(surplus)):  # the rounding, given to (or taken from) the largest
        i = k % organizations
        sizes[i] += 1 if surplus > 0 else -1 if sizes[i] > 1 else 0
    sizes[0] += documents - sum(sizes)
    return sizes


def members_for(documents: int) -> int:
    """Members of an organization of that size: a few for the smallest, hundreds for
    the largest."""
    return max(5, min(1_000, int(2 * math.sqrt(documents)) + 3))


@dataclass(frozen=True)
class Step:
    key: str
    to_state: str
    gate: str
    weight: int


@dataclass(frozen=True)
class Flow:
    kind: str
    graph: Graph
    # The transitions leaving each state, with the weight a walk gives them.
    exits: dict[str, list[Step]]
    roles: dict[str, str]
    comment_required: frozenset[tuple[str, str]]


def flows() -> dict[str, Flow]:
    found = {}
    for graph in seeded_graphs(CURRENCY):
        exits: dict[str, list[Step]] = {}
        for t in sorted(graph.transitions, key=lambda t: t.order):
            weight = {1: 88, 2: 9}.get(t.order, 3)
            exits.setdefault(t.from_state, []).append(Step(t.key, t.to_state, t.gate, weight))
        found[graph.kind] = Flow(
            graph.kind,
            graph,
            exits,
            {s.key: s.role for s in graph.states},
            frozenset((t.from_state, t.key) for t in graph.transitions if t.comment == "required"),
        )
    return found


@dataclass
class OrgPlan:
    """What one organization's rows need from its loader: ids already taken."""

    org_id: int
    number: int
    documents: int
    now: datetime
    member_ids: list[int]
    version_ids: dict[str, int]
    # (delegation id, delegator, delegate)
    delegations: list[tuple[int, int, int]]
    document_ids: list[int]


@dataclass
class OrgRows:
    documents: list[tuple[Any, ...]] = field(default_factory=list)
    decisions: list[tuple[Any, ...]] = field(default_factory=list)
    # (prefix, year) -> the last number used
    counters: dict[tuple[str, int], int] = field(default_factory=dict)


def _amount(rng: random.Random, kind: str) -> Decimal:
    if kind == "leave_request":
        return Decimal("0.00")
    centre = 5.5 if kind == "expense_claim" else 7.5
    value = min(math.exp(rng.gauss(centre, 1.1)), 900_000.0)
    return Decimal(f"{value:.2f}")


def _fields(rng: random.Random, kind: str, created: datetime) -> dict[str, str]:
    day = created.date()
    if kind == "expense_claim":
        spent = day - timedelta(days=rng.randint(0, 10))
        category = rng.choice(("travel", "meals", "lodging", "supplies", "other"))
        return {"category": category, "expense_date": spent.isoformat()}
    if kind == "purchase_request":
        category = rng.choice(("goods", "services", "software"))
        return {"supplier": f"{rng.choice(LAST)} Trading Sdn Bhd", "category": category}
    first = day + timedelta(days=rng.randint(3, 40))
    return {
        "leave_type": rng.choice(("annual", "sick", "unpaid")),
        "first_day": first.isoformat(),
        "last_day": (first + timedelta(days=rng.randint(0, 5))).isoformat(),
    }


def generate(plan: OrgPlan, flow_of: dict[str, Flow]) -> OrgRows:
    """The organization's documents and decisions, the chain of each computed as the
    transition pipeline computes it (``portal.domain.chain.link_hash``)."""
    rng = random.Random(plan.number)  # noqa: S311 - made-up data, the same every run
    out = OrgRows()
    members = plan.member_ids
    # Two admins and an auditor first; of the rest, an eighth decide for the others.
    people = members[3:]
    approvers = people[: max(2, len(people) // 8)]
    start = plan.now - timedelta(days=HISTORY_DAYS)
    created_times = sorted(
        start + timedelta(seconds=rng.uniform(0, HISTORY_DAYS * 86_400 - 3_600))
        for _ in range(plan.documents)
    )
    for doc_id, created in zip(plan.document_ids, created_times, strict=True):
        kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
        flow = flow_of[kind]
        prefix = PREFIXES[kind]
        number = out.counters.get((prefix, created.year), 0) + 1
        out.counters[(prefix, created.year)] = number
        requester = rng.choice(people)
        amount = _amount(rng, kind)
        thing = rng.choice(THINGS[kind])
        title = f"{thing}, {rng.choice(PLACES)}"
        description = f"{thing} for {rng.choice(FIRST)} {rng.choice(LAST)}'s account"
        version_id = plan.version_ids[kind]
        state, at, prev, seq = "draft", created, GENESIS_HASH, 0
        # Decisions: up to ten, about five on average over every kind.
        wanted = sum(rng.random() < 0.9 for _ in range(10)) if kind == "expense_claim" else 10
        deciders: dict[str, int] = {}
        while seq < wanted:
            options = flow.exits.get(state)
            if not options:
                break
            role = flow.roles[state]
            if seq and rng.random() < _STOP_AT.get(role, 0.0):
                break
            step = rng.choices(options, [o.weight for o in options])[0]
            then = at + timedelta(seconds=rng.expovariate(1 / 80_000) + 60)
            if then > plan.now:
                break
            at = then
            seq += 1
            row = _decision(rng, plan, doc_id, seq, version_id, state, step, requester)
            if step.gate != Gate.REQUESTER:
                # One approver per step of a document, as exclusive approval would have it.
                deciders.setdefault(state, rng.choice([a for a in approvers if a != requester]))
                _decided_by(rng, plan, row, deciders[state], requester)
            if (state, step.key) in flow.comment_required:
                row["comment"] = rng.choice(COMMENTS)
            row.update(amount=amount, decided_at=at, prev_hash=prev)
            row["hash"] = prev = link_hash(row)
            row["eligible"], row["resolution"] = (
                json.dumps(row["eligible"]),
                json.dumps(row["resolution"]),
            )
            out.decisions.append(tuple(row[c] for c in DECISION_COLUMNS))
            state = step.to_state
        out.documents.append(
            (
                doc_id,
                plan.org_id,
                kind,
                f"{prefix}-{created.year}-{number:05d}",
                title,
                description,
                amount,
                CURRENCY,
                json.dumps(_fields(rng, kind, created)),
                requester,
                version_id,
                1,
                state,
                at,
                requester if flow.roles[state] == "dispute" else None,
                seq + 1,
                seq,
                prev,
                created,
                at,
            )
        )
    return out


def _decision(
    rng: random.Random,
    plan: OrgPlan,
    doc_id: int,
    seq: int,
    version_id: int,
    state: str,
    step: Step,
    requester: int,
) -> dict[str, Any]:
    return {
        "org_id": plan.org_id,
        "document_id": doc_id,
        "seq": seq,
        "flow_version_id": version_id,
        "from_state": state,
        "to_state": step.to_state,
        "transition": step.key,
        "gate": step.gate,
        "actor_id": requester,
        "authority_member_id": requester,
        "via": "requester",
        "delegation_id": None,
        "currency": CURRENCY,
        "winning_floor": None,
        "eligible": [],
        "resolution": [],
        "comment": "",
        "request_id": f"{rng.getrandbits(128):032x}",
    }


def _decided_by(
    rng: random.Random, plan: OrgPlan, row: dict[str, Any], approver: int, requester: int
) -> None:
    """An approver's decision: on their own grant, under someone's cover, or reached
    past a vacant seat."""
    eligible = sorted({approver, rng.choice(plan.member_ids[3:])} - {requester})
    actor, authority, via, delegation = approver, approver, "grant", None
    luck = rng.random()
    covers = [d for d in plan.delegations if requester not in (d[1], d[2])]
    if luck < DELEGATED and covers:
        delegation, authority, actor = rng.choice(covers)
        via, eligible = "delegation", sorted({authority, *eligible} - {requester})
    elif luck < DELEGATED + ESCALATED:
        via = "escalation"
    row.update(
        actor_id=actor,
        authority_member_id=authority,
        via=via,
        delegation_id=delegation,
        winning_floor=Decimal("0.00"),
        eligible=eligible,
        resolution=[
            {
                "grant": 0,
                "grantee": "superior",
                "floor": "0.0000",
                "members": eligible,
                "position_id": None,
                "escalated": via == "escalation",
                "gap": None,
            }
        ],
    )
