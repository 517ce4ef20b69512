"""The organizations `portal bench soak` works in: each the decision benchmark's
(teams of staff under a lead under a head, a finance seat, the three-step flow
draft → manager → finance → done), with documents already submitted, so that the leads
and the finance officer have work waiting when the load starts.

Who does what in the load: the leads and the finance officer read their inbox, open
documents and decide (one by one and in bulk); one admin saves the flow's draft in the
editor; a few staff read their inbox and their own documents. Each step of a document
has exactly one person who may decide it, so two simulated members never race for the
same decision: any refusal is a failure, not a lost race.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from portal.bench.cleanup import purge_organizations
from portal.bench.decision_world import AMOUNT, KIND, PASSWORD, build_decision_world
from portal.documents import services as documents
from portal.documents.transitions import transition_document

PREFIX = "soak-"
TEAMS = 4
PER_TEAM = 5
READERS = 2  # staff per organization who only read


@dataclass(frozen=True)
class Person:
    """A member the load signs in as: their address, their organization, and the
    documents they raised (a reader opens those)."""

    email: str
    org: str
    own: tuple[str, ...] = ()


@dataclass(frozen=True)
class SoakOrg:
    slug: str
    org_id: int
    kind: str
    admin: Person
    deciders: tuple[Person, ...]  # the leads and the finance officer
    readers: tuple[Person, ...]
    references: frozenset[str]  # every document the organization has


def build_soak_world(
    organizations: int, documents_per_org: int, progress: Callable[[str], None]
) -> list[SoakOrg]:
    """``organizations`` organizations, each with ``documents_per_org`` submitted
    documents spread over its staff."""
    built = []
    for n in range(organizations):
        built.append(_organization(documents_per_org))
        if (n + 1) % 5 == 0 or n + 1 == organizations:
            progress(f"  {n + 1}/{organizations} organizations built")
    return built


def _organization(count: int) -> SoakOrg:
    world = build_decision_world(PREFIX, TEAMS, PER_TEAM)
    own: dict[int, list[str]] = {r.member_id: [] for r in world.requesters}
    for i in range(count):
        requester = world.requesters[i % len(world.requesters)]
        doc = documents.create_document(
            requester, kind=KIND, title=f"Soak claim {i + 1}", amount=AMOUNT
        )
        transition_document(requester, doc.reference, "submit", seen_state="draft")
        own[requester.member_id].append(doc.reference)
    slug = world.slug
    leads = {a.member_id: a for a in world.superiors.values()}
    deciders = [Person(world.emails[m], slug) for m in sorted(leads)]
    deciders.append(Person(world.emails[world.finance.member_id], slug))
    readers = tuple(
        Person(world.emails[r.member_id], slug, tuple(own[r.member_id]))
        for r in world.requesters[:READERS]
    )
    return SoakOrg(
        slug,
        world.org_id,
        KIND,
        Person(f"admin@{slug}.test", slug),
        tuple(deciders),
        readers,
        frozenset(ref for refs in own.values() for ref in refs),
    )


def remove_soak_world(owner_url: str) -> int:
    """Every soak organization and account, this run's and any a stopped run left."""
    return purge_organizations(owner_url, slug_like=f"{PREFIX}%", email_like=f"%@{PREFIX}%")


__all__ = ["PASSWORD", "Person", "SoakOrg", "build_soak_world", "remove_soak_world"]
