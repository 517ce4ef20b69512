"""A document is numbered by its organization's year: at 01:00 on New Year's Day in
Kuala Lumpur (17:00 on 31 December in UTC) a Kuala Lumpur claim is EXP-2027-…, while an
organization keeping UTC is still in 2026."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from portal.core.clock import clock
from portal.documents import services as documents
from tests.documents.test_services import CLAIM_FIELDS

NEW_YEAR_IN_KL = datetime(2026, 12, 31, 17, 0, tzinfo=UTC)


def _claim(actor):
    return documents.create_document(
        actor,
        kind="expense_claim",
        title="Taxi to KLIA",
        amount=Decimal("45.60"),
        fields=CLAIM_FIELDS,
    )


def test_references_take_the_organizations_year(make_org, make_member):
    clock.freeze(NEW_YEAR_IN_KL)
    kl = make_org("kl-year", time_zone="Asia/Kuala_Lumpur", territory="MY", base_currency="MYR")
    utc = make_org("utc-year", base_currency="MYR")

    in_kl = _claim(make_member(kl, "Siti Aminah").actor)
    in_utc = _claim(make_member(utc, "Sam Utc").actor)

    assert in_kl.reference == "EXP-2027-00001"
    assert in_utc.reference == "EXP-2026-00001"
