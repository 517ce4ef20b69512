"""The world the audit search and export tests run in: the demo organization with a few
documents of Siti's and Jason's in known states, days and amounts (one decided under
cover, one rejected, one discarded draft), and Globex with a document whose title matches
every word searched here — which must never show, in rows, counts or exports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from portal.core.clock import clock
from portal.documents import services as documents
from portal.domain.actor import Actor
from tests.delegations.covers import (
    CLAIM_FIELDS,
    PURCHASE_FIELDS,
    move,
    set_cover,
    start_today,
    submitted_claim,
)
from tests.factories import Tenant, demo_people

DAY = timedelta(days=1)
# Every document of this world has the word in its title, Globex's too.
WORD = "Zephyr"


@dataclass
class World:
    person: Callable[[str], Actor]
    first_day: date
    # Siti's claim rejected by Nurul on the first day: 1250.00.
    rejected: Any
    # Siti's claim reviewed by Hannah covering Nurul, three days later: 480.00.
    reviewed: Any
    # Jason's purchase request, submitted on the third day: 300.00.
    purchase: Any
    # Jason's draft, thrown away: 75.50.
    discarded: Any
    globex_reference: str

    @property
    def auditor(self) -> Actor:
        return self.person("ravi")

    @property
    def admin(self) -> Actor:
        return self.person("aisha")


def build_world(globex: Tenant) -> World:
    person = demo_people()
    siti, jason, nurul, hannah = (person(n) for n in ("siti", "jason", "nurul", "hannah"))
    today = start_today()
    rejected = move(
        nurul,
        submitted_claim(siti, f"{WORD} hotel, Kuching", "1250.00"),
        "reject",
        "No receipt attached",
    )
    clock.advance(3 * DAY)
    set_cover(nurul, hannah, today + 3 * DAY, today + 5 * DAY)
    reviewed = move(hannah, submitted_claim(siti, f"{WORD} taxi, Penang", "480.00"), "review")
    purchase = documents.create_document(
        jason,
        kind="purchase_request",
        title=f"{WORD} printer paper",
        amount=Decimal("300.00"),
        fields=PURCHASE_FIELDS,
    )
    from portal.documents import transitions

    purchase = transitions.transition_document(
        jason, purchase.reference, "submit", seen_state="draft"
    ).document
    draft = documents.create_document(
        jason,
        kind="expense_claim",
        title=f"{WORD} dinner",
        amount=Decimal("75.50"),
        fields=CLAIM_FIELDS,
    )
    documents.discard_draft(jason, draft.reference)
    theirs = documents.create_document(
        globex.admin.actor,
        kind="expense_claim",
        title=f"{WORD} taxi, Globex",
        amount=Decimal("480.00"),
        fields=CLAIM_FIELDS,
    )
    return World(person, today, rejected, reviewed, purchase, draft, theirs.reference)


@pytest.fixture
def world(app, globex) -> World:
    return build_world(globex)
