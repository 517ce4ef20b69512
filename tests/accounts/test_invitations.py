"""People join by invitation: an admin invites an address, the person follows the link
in the mail and sets their own password (or joins with the account they have). No admin
ever sees or sets a password, and no admin learns anything about accounts elsewhere."""

from __future__ import annotations

import re

import pytest

from portal.accounts import queries as account_queries
from portal.accounts import services
from portal.accounts.services.joining import accept_as_account, accept_with_new_account
from portal.core.clock import clock
from portal.domain.errors import DomainError, Forbidden, NotFound
from portal.domain.invitations import INVITATION_VALID, RESEND_PAUSE
from tests.conftest import deliver_mail
from tests.factories import PASSWORD, browser_for, csrf_token_from, open_invitation, sign_in

MEMBERS = "/o/{slug}/admin/members/"


def _invite(browser, token: str, slug: str, email: str, name: str, **roles: str):
    """Send the invite form; answers the members page the post redirects to."""
    sent = browser.post(
        MEMBERS.format(slug=slug) + "invitations",
        data={"email": email, "name": name, "csrf_token": token, **roles},
    )
    assert sent.status_code == 303, sent.get_data(as_text=True)[:500]
    return browser.get(sent.headers["Location"])


def _page_text(response) -> str:
    html = response.get_data(as_text=True)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _link_in(mailbox, email: str) -> str:
    [mail] = mailbox.to(email)
    return mail.link("/invitations/")


# --- the doors the issue found open ----------------------------------------------------------


def test_an_admin_of_another_org_never_holds_a_password_to_someone_elses_account(
    app, acme, globex, mailbox
):
    stranger_admin, stranger_token = sign_in(app, globex.admin)
    # B's admin invites an address nobody has an account for yet: no password, anywhere.
    page = _invite(stranger_admin, stranger_token, "globex-test", "someone@a.example", "Someone")
    assert page.status_code == 200
    assert "An invitation is on its way to someone@a.example." in _page_text(page)
    assert 'class="secret"' not in page.get_data(as_text=True)
    # A's admin invites the same address later, and hears the very same thing.
    own_admin, own_token = sign_in(app, acme.admin)
    again = _invite(own_admin, own_token, "acme-test", "someone@a.example", "Someone", admin="y")
    assert "An invitation is on its way to someone@a.example." in _page_text(again)

    deliver_mail(acme.org.id, globex.org.id)
    assert len(mailbox.to("someone@a.example")) == 2
    # The person follows A's link and chooses a password only they know.
    link = next(
        m.link("/invitations/") for m in mailbox.to("someone@a.example") if "Acme Test" in m.subject
    )
    person = app.test_client()
    form = person.get(link)
    assert form.status_code == 200
    joined = person.post(
        f"{link}/join",
        data={
            "name": "Someone Real",
            "new_password": "only-i-know-this-one",
            "confirm_password": "only-i-know-this-one",
            "csrf_token": csrf_token_from(form.get_data(as_text=True)),
        },
    )
    assert joined.status_code == 302 and joined.headers["Location"] == "/o/acme-test/"
    assert person.get("/o/acme-test/admin/members/").status_code == 200  # an A admin now

    # B's admin has nothing that opens the account: every guess is just refused.
    for guess in (PASSWORD, "Someone", "someone@a.example"):
        refused = app.test_client().post(
            "/login",
            data={
                "email": "someone@a.example",
                "password": guess,
                "csrf_token": csrf_token_from(
                    app.test_client().get("/login").get_data(as_text=True)
                ),
            },
        )
        assert refused.status_code in (400, 401)
    assert browser_for(app, "someone@a.example", "only-i-know-this-one")


def test_inviting_an_address_that_has_an_account_elsewhere_reveals_nothing_and_enrols_nobody(
    app, acme, globex, make_member, mailbox
):
    daniel = make_member(acme.org, "Daniel Tan", email="daniel@a.example")
    stranger_admin, token = sign_in(app, globex.admin)

    known = _invite(stranger_admin, token, "globex-test", "daniel@a.example", "D. Unknown")
    unknown = _invite(stranger_admin, token, "globex-test", "nobody@a.example", "N. Unknown")

    assert known.status_code == unknown.status_code == 200
    known_text = _page_text(known).replace("daniel@a.example", "ADDRESS")
    unknown_text = _page_text(unknown).replace("nobody@a.example", "ADDRESS")
    # The same words, but for the names typed and the list growing by one.
    assert "Daniel Tan" not in known.get_data(as_text=True)
    assert known_text.split("Invitations")[0].replace("D. Unknown", "") == (
        unknown_text.split("Invitations")[0].replace("D. Unknown", "").replace("N. Unknown", "")
    )
    # Daniel is not a member of globex: he was asked, not enrolled.
    assert account_queries.actor_for("globex-test", daniel.user_id, None) is None
    names = [m.name for m in account_queries.list_members(globex.admin.actor)]
    assert "Daniel Tan" not in names


# --- inviting ---------------------------------------------------------------------------------


def test_an_invitation_mail_reaches_the_address_in_the_organizations_language(
    acme, make_org, make_member, mailbox
):
    kl = make_org("kl-test", "KL Test", default_locale="ms")
    admin = make_member(kl, "Aminah Admin", roles=("admin",))
    services.invite_member(admin.actor, email="Baru@Example.test", name="  Orang   Baru ")

    assert deliver_mail(kl.id) == 1
    [mail] = mailbox.to("baru@example.test")
    assert mail.mail_from == "no-reply@countersign.test"
    assert "KL Test" in mail.subject and "Aminah Admin" in mail.subject
    assert mail.message["Content-Language"] == "ms"
    assert "Orang Baru" in mail.text and "/invitations/" in mail.text
    assert mail.link("/invitations/") in mail.html
    assert mail.message["Message-ID"].endswith("@countersign.test>")
    assert mail.message["Auto-Submitted"] == "auto-generated"
    # Delivered once: the outbox row is done.
    assert deliver_mail(kl.id) == 0


def test_only_an_admin_invites_and_a_member_of_this_org_cannot_be_invited_twice(acme, make_member):
    bob = make_member(acme.org, "Bob Builder")
    services.invite_member(acme.admin.actor, email="one@example.test", name="One")
    overview = services.members_overview(acme.admin.actor)
    assert [i.email for i in overview.invitations] == ["one@example.test"]

    with pytest.raises(Forbidden):
        services.invite_member(bob.actor, email="two@example.test", name="Two")
    with pytest.raises(DomainError) as member:
        services.invite_member(acme.admin.actor, email=bob.email.upper(), name="Bob again")
    assert (member.value.code, member.value.field) == ("duplicate_email", "email")
    emails = [i.email for i in services.members_overview(acme.admin.actor).invitations]
    assert emails == ["one@example.test"]


def test_inviting_an_invited_address_again_renews_the_one_invitation(acme, mailbox):
    services.invite_member(acme.admin.actor, email="twice@example.test", name="Twice")
    _, first_link = open_invitation(acme.org, "twice@example.test")
    with pytest.raises(DomainError, match="resent_just_now"):  # a double click mails once
        services.invite_member(acme.admin.actor, email="twice@example.test", name="Twice")
    clock.freeze(clock.now() + RESEND_PAUSE)

    services.invite_member(
        acme.admin.actor, email="twice@example.test", name="Twice Again", roles=["auditor"]
    )

    [row] = services.members_overview(acme.admin.actor).invitations
    assert (row.name, row.roles, row.send_count) == ("Twice Again", ("auditor",), 2)
    _, second_link = open_invitation(acme.org, "twice@example.test")
    assert second_link != first_link
    with pytest.raises(DomainError, match="invitation_invalid"):
        accept_with_new_account(first_link, name="Twice", password=PASSWORD)
    # Only the newer mail goes out: the older one has nothing to say any more.
    deliver_mail(acme.org.id)
    assert len(mailbox.to("twice@example.test")) == 1


# --- following the link -------------------------------------------------------------------------


def test_a_link_is_single_use(acme):
    services.invite_member(
        acme.admin.actor, email="new@example.test", name="New", roles=["auditor"]
    )
    _, link = open_invitation(acme.org, "new@example.test")

    joined = accept_with_new_account(link, name="New Person", password=PASSWORD)

    actor = account_queries.actor_for("acme-test", joined.id, None)
    assert actor is not None and actor.roles == frozenset({"auditor"})
    with pytest.raises(DomainError, match="invitation_used"):
        accept_with_new_account(link, name="Someone else", password=PASSWORD)


def test_a_link_expires_and_a_resend_gives_a_new_one(acme):
    services.invite_member(acme.admin.actor, email="late@example.test", name="Late")
    invitation_id, old_link = open_invitation(acme.org, "late@example.test")
    clock.freeze(clock.now() + INVITATION_VALID)

    with pytest.raises(DomainError, match="invitation_expired"):
        accept_with_new_account(old_link, name="Late", password=PASSWORD)
    [row] = services.members_overview(acme.admin.actor).invitations
    assert row.state == "expired"

    services.resend_invitation(acme.admin.actor, invitation_id)
    with pytest.raises(DomainError, match="invitation_invalid"):
        accept_with_new_account(old_link, name="Late", password=PASSWORD)
    _, new_link = open_invitation(acme.org, "late@example.test")
    assert accept_with_new_account(new_link, name="Late", password=PASSWORD).org_slug == "acme-test"


def test_a_revoked_invitation_cannot_be_used(acme, globex):
    services.invite_member(acme.admin.actor, email="gone@example.test", name="Gone")
    invitation_id, link = open_invitation(acme.org, "gone@example.test")
    with pytest.raises(NotFound):  # another organization's invitation does not exist
        services.revoke_invitation(globex.admin.actor, invitation_id)
    assert services.members_overview(acme.admin.actor).invitations

    services.revoke_invitation(acme.admin.actor, invitation_id)

    assert services.members_overview(acme.admin.actor).invitations == []
    with pytest.raises(DomainError, match="invitation_revoked"):
        accept_with_new_account(link, name="Gone", password=PASSWORD)


def test_a_tampered_or_foreign_link_is_refused(acme):
    services.invite_member(acme.admin.actor, email="real@example.test", name="Real")
    _, link = open_invitation(acme.org, "real@example.test")
    for forged in (link[:-2] + "xx", "nonsense", link.replace(".", "-", 1)):
        with pytest.raises(DomainError, match="invitation_invalid"):
            accept_with_new_account(forged, name="Forger", password=PASSWORD)
    assert accept_with_new_account(link, name="Real", password=PASSWORD)


def test_an_existing_account_accepts_signed_in_and_keeps_its_own_password(app, acme, globex):
    services.invite_member(acme.admin.actor, email=globex.admin.email, name="Typed by acme")
    _, link = open_invitation(acme.org, globex.admin.email)

    with pytest.raises(DomainError, match="invitation_has_account"):
        accept_with_new_account(link, name="Taken over", password="a-new-password-1")
    with pytest.raises(DomainError, match="invitation_other_account"):
        accept_as_account(acme.admin.user_id, link)  # a forwarded link: another account
    joined = accept_as_account(globex.admin.user_id, link)

    assert joined.name == globex.admin.name  # never the name acme typed
    assert [o.slug for o in account_queries.list_my_organizations(globex.admin.user_id)] == [
        "acme-test",
        "globex-test",
    ]
    assert browser_for(app, globex.admin.email, PASSWORD)  # the password it always had


def test_a_weak_password_is_refused_and_the_invitation_stays_usable(acme):
    services.invite_member(acme.admin.actor, email="weak@example.test", name="Weak")
    _, link = open_invitation(acme.org, "weak@example.test")
    for weak, code in (("short", "password_too_short"), ("weak@example.test", "password_is_email")):
        with pytest.raises(DomainError) as refused:
            accept_with_new_account(link, name="Weak", password=weak)
        assert (refused.value.code, refused.value.field) == (code, "new_password")
    assert accept_with_new_account(link, name="Weak", password=PASSWORD)


# --- the pages --------------------------------------------------------------------------------


def test_the_members_page_lists_invitations_that_can_be_resent_and_revoked(app, acme, mailbox):
    admin, token = sign_in(app, acme.admin)
    _invite(admin, token, "acme-test", "pending@example.test", "Pending Person", auditor="y")
    page = admin.get(MEMBERS.format(slug="acme-test")).get_data(as_text=True)
    assert "Pending Person" in page and "pending@example.test" in page
    invitation_id, _ = open_invitation(acme.org, "pending@example.test")

    clock.freeze(clock.now() + RESEND_PAUSE)  # a resend is refused for a minute
    resent = admin.post(
        MEMBERS.format(slug="acme-test") + f"invitations/{invitation_id}/resend",
        data={"csrf_token": token},
    )
    assert resent.status_code == 303
    revoked = admin.post(
        MEMBERS.format(slug="acme-test") + f"invitations/{invitation_id}/revoke",
        data={"csrf_token": token},
    )
    assert revoked.status_code == 303
    after = admin.get(MEMBERS.format(slug="acme-test")).get_data(as_text=True)
    assert "pending@example.test" not in after
    assert "No invitations are waiting." in after


def test_following_a_link_signed_in_as_the_invited_account_joins_with_one_click(
    app, acme, globex, mailbox
):
    services.invite_member(acme.admin.actor, email=globex.admin.email, name="Gus")
    deliver_mail(acme.org.id)
    link = _link_in(mailbox, globex.admin.email)
    browser, _ = sign_in(app, globex.admin)

    page = browser.get(link)
    assert "Accept and join" in page.get_data(as_text=True)
    accepted = browser.post(
        f"{link}/accept", data={"csrf_token": csrf_token_from(page.get_data(as_text=True))}
    )
    assert accepted.status_code == 302 and accepted.headers["Location"] == "/o/acme-test/"
    assert browser.get("/o/acme-test/").status_code == 200
    used = app.test_client().get(link)
    assert used.status_code == 410
    assert "accepted already" in used.get_data(as_text=True)


def test_an_archived_organizations_invitations_cannot_be_used(acme):
    services.invite_member(acme.admin.actor, email="late@example.test", name="Late")
    _, link = open_invitation(acme.org, "late@example.test")
    services.archive_organization("acme-test")

    with pytest.raises(DomainError, match="organization_closed"):
        accept_with_new_account(link, name="Late", password=PASSWORD)
    services.restore_organization("acme-test")
    assert accept_with_new_account(link, name="Late", password=PASSWORD)


def test_an_account_made_meanwhile_is_told_to_sign_in_not_shown_an_error(app, acme):
    services.invite_member(acme.admin.actor, email="racer@example.test", name="Racer")
    _, link = open_invitation(acme.org, "racer@example.test")
    browser = app.test_client()
    page = browser.get(f"/invitations/{link}")
    assert "Create your account" in page.get_data(as_text=True)
    services.create_user("racer@example.test", "Racer", PASSWORD)  # elsewhere, meanwhile

    answer = browser.post(
        f"/invitations/{link}/join",
        data={
            "name": "Racer",
            "new_password": "another passphrase",
            "confirm_password": "another passphrase",
            "csrf_token": csrf_token_from(page.get_data(as_text=True)),
        },
    )

    assert answer.status_code == 409
    assert "Sign in to accept" in answer.get_data(as_text=True)
