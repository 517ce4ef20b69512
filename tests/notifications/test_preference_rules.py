"""The rules of notice preferences, without the app: the defaults, what a code is, what
stored overrides mean, and how a submitted form is read (or refused whole)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from portal.domain.errors import DomainError
from portal.domain.notice_preferences import (
    DEFAULTS,
    Channel,
    NoticeKind,
    channels_for,
    codes_of,
    digest_day,
    kind_of,
    mailed_kinds,
    read_preference_form,
    settings_of,
)

BOTH = frozenset({Channel.IN_APP, Channel.EMAIL})
IN_APP = frozenset({Channel.IN_APP})


def test_the_defaults_mail_what_asks_something_of_the_reader_and_show_everything():
    assert all(Channel.IN_APP in DEFAULTS[k] for k in NoticeKind)
    mailed = {k for k in NoticeKind if Channel.EMAIL in DEFAULTS[k]}
    assert mailed == {
        NoticeKind.ASSIGNED,
        NoticeKind.DUE_SOON,
        NoticeKind.OVERDUE,
        NoticeKind.COVER,
        NoticeKind.ADMIN,
    }


def test_each_notice_code_belongs_to_its_kind():
    assert kind_of("notice_task_assigned") is NoticeKind.ASSIGNED
    assert kind_of("notice_escalated") is NoticeKind.ASSIGNED
    assert kind_of("notice_reassigned") is NoticeKind.ASSIGNED
    assert kind_of("notice_due_soon") is NoticeKind.DUE_SOON
    assert kind_of("notice_overdue") is NoticeKind.OVERDUE
    assert kind_of("notice_document_moved") is NoticeKind.DOCUMENT_MOVED
    assert kind_of("notice_escalated_away") is NoticeKind.ESCALATED_AWAY
    assert kind_of("notice_escalation_gap") is NoticeKind.ADMIN
    assert kind_of("notice_auto_refused") is NoticeKind.ADMIN
    assert kind_of("notice_task_handed_over") is NoticeKind.ASSIGNED
    for code in ("set", "started", "ended", "summary", "revoked"):
        assert kind_of(f"notice_cover_{code}") is NoticeKind.COVER
    # A code nobody chooses about is shown in the portal and never mailed.
    assert kind_of("notice_something_new") is None
    assert channels_for({"assigned": {"email": True}}, None) == IN_APP
    assert codes_of([NoticeKind.ADMIN]) == {"notice_escalation_gap", "notice_auto_refused"}


def test_stored_overrides_change_only_what_they_name_and_junk_is_ignored():
    assert channels_for(None, NoticeKind.ASSIGNED) == BOTH
    assert channels_for({"assigned": {"email": False}}, NoticeKind.ASSIGNED) == IN_APP
    assert channels_for({"document_moved": {"email": True}}, NoticeKind.DOCUMENT_MOVED) == BOTH
    junk = {"assigned": {"email": "no", "fax": True}, "bogus": {"email": False}}
    assert channels_for(junk, NoticeKind.ASSIGNED) == BOTH
    assert channels_for({"assigned": ["email"]}, NoticeKind.ASSIGNED) == BOTH
    assert NoticeKind.ASSIGNED not in mailed_kinds({"assigned": {"email": False}})


def test_a_form_is_read_whole_and_only_differences_are_stored():
    ticked = [
        ("assigned.in_app", "on"),
        ("due_soon.in_app", "on"),
        ("due_soon.email", "on"),
        ("overdue.in_app", "on"),
        ("overdue.email", "on"),
        ("document_moved.in_app", "on"),
        ("document_moved.email", "on"),
        ("escalated_away.in_app", "on"),
        ("cover.in_app", "on"),
        ("cover.email", "on"),
        ("admin.in_app", "on"),
        ("admin.email", "on"),
        ("email_digest", "on"),
    ]
    chosen = read_preference_form(ticked)
    assert chosen.email_digest
    assert chosen.channels[NoticeKind.ASSIGNED] == IN_APP
    assert chosen.overrides() == {"assigned": {"email": False}, "document_moved": {"email": True}}
    # Nothing ticked: everything off, stored as such.
    nothing = read_preference_form([])
    assert not nothing.email_digest
    assert all(not c for c in nothing.channels.values())
    # Kinds the form did not offer keep what the member had.
    kept = read_preference_form(
        [], shown=[NoticeKind.ASSIGNED], current=settings_of({"admin": {"email": False}}, False)
    )
    assert kept.channels[NoticeKind.ADMIN] == IN_APP
    assert kept.channels[NoticeKind.OVERDUE] == BOTH
    assert kept.channels[NoticeKind.ASSIGNED] == frozenset()


@pytest.mark.parametrize(
    ("pairs", "code"),
    [
        ([("bogus.email", "on")], "unknown_notice_setting"),
        ([("assigned.fax", "on")], "unknown_notice_setting"),
        ([("admin.email", "on")], "unknown_notice_setting"),  # not offered to this member
        ([("assigned.email", "on"), ("assigned.email", "on")], "notice_setting_repeated"),
        ([("email_digest", "on"), ("email_digest", "on")], "notice_setting_repeated"),
        ([("assigned.email", "yes")], "bad_notice_setting"),
        ([("assigned.email", "on\x00")], "control_character"),
        ([("assigned.email\n", "on")], "control_character"),
        ([("assigned.email", "o" * 500)], "value_too_long"),
    ],
)
def test_a_form_with_anything_the_page_never_offers_is_refused(pairs, code):
    # Allowed first: the same form without the bad field is read.
    read_preference_form([("assigned.email", "on")], shown=[NoticeKind.ASSIGNED])
    with pytest.raises(DomainError) as refused:
        read_preference_form(pairs, shown=[k for k in NoticeKind if k is not NoticeKind.ADMIN])
    assert refused.value.code == code


def test_the_digest_is_due_from_eight_in_the_members_zone():
    # 23:59 UTC is 07:59 in Kuala Lumpur: not yet; a minute later it is that day's.
    assert digest_day(datetime(2026, 12, 1, 23, 59, tzinfo=UTC), "Asia/Kuala_Lumpur") is None
    assert digest_day(datetime(2026, 12, 2, 0, 0, tzinfo=UTC), "Asia/Kuala_Lumpur") == date(
        2026, 12, 2
    )
    assert digest_day(datetime(2026, 12, 2, 0, 0, tzinfo=UTC), "UTC") is None
    assert digest_day(datetime(2026, 12, 2, 8, 0, tzinfo=UTC), "Not/AZone") == date(2026, 12, 2)
