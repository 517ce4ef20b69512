"""A grant in the reader's words: each kind of grantee, the named member or seat from
the org chart (or its number when the chart no longer knows it), and the parts a grant
adds only when they differ from the defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from flask_babel import force_locale

from portal.domain.graph import Grant, Grantee, GranteeKind
from portal.flows.wording.grants import grant_words, grantee_words


@dataclass(frozen=True)
class Chart:
    members: dict[int, str] = field(default_factory=lambda: {7: "Lee Lead"})
    positions: dict[int, str] = field(default_factory=lambda: {3: "HEAD — Head of sales"})


@pytest.fixture
def words(app):
    with app.test_request_context():
        yield


@pytest.mark.parametrize(
    ("grantee", "expected"),
    [
        (Grantee(GranteeKind.SUPERIOR), "the requester's superior"),
        (Grantee(GranteeKind.UNIT_HEAD), "the head of the requester's unit"),
        (
            Grantee(GranteeKind.UNIT_HEAD, walk_up=True),
            "the head of the requester's unit (or of a unit above)",
        ),
        (Grantee(GranteeKind.LEVELS_UP, levels=1), "1 seat above the requester"),
        (Grantee(GranteeKind.LEVELS_UP, levels=2), "2 seats above the requester"),
        (Grantee(GranteeKind.ROLE, role="admin"), "every admin"),
        (Grantee(GranteeKind.MEMBER, member=7), "Lee Lead"),
        (Grantee(GranteeKind.MEMBER, member=8), "member #8"),
        (Grantee(GranteeKind.POSITION, position=3), "HEAD — Head of sales"),
        (Grantee(GranteeKind.POSITION, position=4), "position #4"),
    ],
)
def test_each_grantee_reads_as_who_it_is(words, grantee, expected):
    assert grantee_words(grantee, Chart()) == expected


def test_a_grant_adds_only_what_differs_from_the_defaults(words):
    plain = Grant(Grantee(GranteeKind.SUPERIOR), state="approved")
    assert grant_words(plain, Chart()) == "the requester's superior"

    full = Grant(
        Grantee(GranteeKind.POSITION, position=3),
        state="approved",
        min_amount=Decimal("2500.00"),
        currency="MYR",
        on_vacancy="refuse",
        max_escalation_levels=1,
    )
    assert grant_words(full, Chart()) == (
        "HEAD — Head of sales, from MYR\u00a02,500.00, refused when the seat is empty,"
        " escalated at most 1 level"
    )
    with force_locale("zh"):
        assert grant_words(plain, Chart()) == "申请人的上级"
        assert "岗位空缺时拒绝" in grant_words(full, Chart())
