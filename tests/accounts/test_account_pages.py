"""A person's own account through the pages: password change and reset, two-factor
sign-in from setting up to signing in with a code, an organization that asks its admins
for it, and leaving an organization."""

from __future__ import annotations

import re

from sqlalchemy import select

from portal.accounts.models import Credential
from portal.core.clock import clock
from portal.core.uow import platform_work
from portal.domain.credentials import time_step, totp_code
from portal.domain.invitations import PASSWORD_RESET_VALID
from tests.conftest import deliver_mail
from tests.factories import PASSWORD, csrf_token_from, post_login

NEW_PASSWORD = "a brand new passphrase"


def _token(client, path: str) -> str:
    return csrf_token_from(client.get(path).get_data(as_text=True))


def _pending_secret(user_id: int) -> str:
    with platform_work(user_id=user_id) as uow:
        secret = uow.session.scalar(
            select(Credential.totp_pending_secret).where(Credential.user_id == user_id)
        )
    assert secret is not None
    return secret


def _code(secret: str, ahead: int = 0) -> str:
    return totp_code(secret, time_step(clock.now()) + ahead)


# --- the password -------------------------------------------------------------------------


def test_changing_the_password_needs_the_current_one_and_ends_every_other_session(
    app, acme, sign_in, mailbox
):
    here, elsewhere = sign_in(acme.admin.email), sign_in(acme.admin.email)
    form = {
        "current_password": "not my password",
        "new_password": NEW_PASSWORD,
        "confirm_password": NEW_PASSWORD,
        "csrf_token": here.csrf_token,
    }
    refused = here.client.post("/account/password", data=form)
    assert refused.status_code == 422
    assert "That is not your current password." in refused.get_data(as_text=True)
    assert elsewhere.client.get("/o/acme-test/").status_code == 200

    changed = here.client.post("/account/password", data={**form, "current_password": PASSWORD})

    assert changed.status_code == 302
    assert here.client.get("/o/acme-test/").status_code == 200  # this browser carries on
    assert elsewhere.client.get("/o/acme-test/").status_code == 302  # the other is out
    assert post_login(app.test_client(), acme.admin.email, PASSWORD).status_code == 401
    assert post_login(app.test_client(), acme.admin.email, NEW_PASSWORD).status_code == 302
    deliver_mail(acme.org.id)
    [notice] = mailbox.to(acme.admin.email)
    assert "password was changed" in notice.subject.lower()


def test_a_forgotten_password_is_reset_through_a_link_that_works_once(app, acme, mailbox):
    browser = app.test_client()
    answers = []
    for email in (acme.admin.email, "nobody@example.test"):
        sent = browser.post(
            "/password/forgot",
            data={"email": email, "csrf_token": _token(browser, "/password/forgot")},
            follow_redirects=True,
        )
        answers.append(sent.get_data(as_text=True).replace(email, "ADDRESS"))
    # The same answer for an address with an account and one without.
    said = [re.search(r"If ADDRESS has an account[^<]*", a) for a in answers]
    assert said[0] and said[1] and said[0].group(0) == said[1].group(0)
    deliver_mail()
    assert mailbox.to("nobody@example.test") == []
    [mail] = mailbox.to(acme.admin.email)
    link = mail.link("/password/reset/")

    page = browser.get(link)
    assert page.status_code == 200 and acme.admin.email in page.get_data(as_text=True)
    reset = browser.post(
        link,
        data={
            "new_password": NEW_PASSWORD,
            "confirm_password": NEW_PASSWORD,
            "csrf_token": csrf_token_from(page.get_data(as_text=True)),
        },
    )
    assert reset.status_code == 302 and reset.headers["Location"] == "/login"
    assert post_login(app.test_client(), acme.admin.email, NEW_PASSWORD).status_code == 302
    again = browser.get(link)
    assert again.status_code == 410
    assert "was used already" in again.get_data(as_text=True)


def test_a_reset_link_expires_after_an_hour(app, acme, mailbox):
    browser = app.test_client()
    browser.post(
        "/password/forgot",
        data={"email": acme.admin.email, "csrf_token": _token(browser, "/password/forgot")},
    )
    deliver_mail()
    link = mailbox.to(acme.admin.email)[0].link("/password/reset/")
    assert browser.get(link).status_code == 200
    clock.freeze(clock.now() + PASSWORD_RESET_VALID)
    assert browser.get(link).status_code == 410
    assert browser.get("/password/reset/forged-token").status_code == 410


def test_asking_for_reset_links_again_and_again_is_throttled(app, acme, mailbox):
    browser = app.test_client()
    statuses = []
    for _ in range(21):
        answer = browser.post(
            "/password/forgot",
            data={"email": acme.admin.email, "csrf_token": _token(browser, "/password/forgot")},
        )
        statuses.append(answer.status_code)
    assert statuses[:20] == [302] * 20 and statuses[20] == 429
    assert int(answer.headers["Retry-After"]) > 0
    deliver_mail()
    # One mail reached the mailbox: each request replaced the link before it, and only the
    # first few were even considered, so an address is not flooded.
    assert len(mailbox.to(acme.admin.email)) == 1


# --- two-factor sign-in -------------------------------------------------------------------------


def test_two_factor_sign_in_from_setting_up_to_signing_in_with_a_code(app, acme, sign_in, mailbox):
    browser = sign_in(acme.admin.email)
    page = browser.client.get("/account/two-factor")
    assert "Set up two-factor sign-in" in page.get_data(as_text=True)
    # Starting takes the password: a session left open is not enough.
    refused = browser.client.post(
        "/account/two-factor/start", data={"password": "wrong", "csrf_token": browser.csrf_token}
    )
    assert refused.status_code == 422
    assert "That is not your current password." in refused.get_data(as_text=True)
    browser.client.post(
        "/account/two-factor/start", data={"password": PASSWORD, "csrf_token": browser.csrf_token}
    )
    setup = browser.client.get("/account/two-factor").get_data(as_text=True)
    assert '<svg role="img"' in setup and 'data-testid="totp-secret"' in setup
    secret = _pending_secret(acme.admin.user_id)

    wrong = browser.client.post(
        "/account/two-factor/confirm", data={"code": "000000", "csrf_token": browser.csrf_token}
    )
    assert wrong.status_code == 422
    confirmed = browser.client.post(
        "/account/two-factor/confirm",
        data={"code": _code(secret), "csrf_token": browser.csrf_token},
    )
    assert confirmed.status_code == 200
    codes = re.findall(
        r"<li>([a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4})</li>", confirmed.get_data(as_text=True)
    )
    assert len(codes) == 10
    # Shown once: the page afterwards lists how many are left, not the codes.
    later = browser.client.get("/account/two-factor").get_data(as_text=True)
    assert codes[0] not in later and "10 recovery codes left." in later
    deliver_mail()
    assert "two-factor sign-in is on" in mailbox.to(acme.admin.email)[0].subject.lower()

    fresh = app.test_client()
    halfway = post_login(fresh, acme.admin.email, PASSWORD)
    assert halfway.status_code == 302 and halfway.headers["Location"] == "/login/code"
    assert fresh.get("/o/acme-test/").status_code == 302  # no session yet
    code_page = fresh.get("/login/code")
    token = csrf_token_from(code_page.get_data(as_text=True))
    assert (
        fresh.post("/login/code", data={"code": "123456", "csrf_token": token}).status_code == 401
    )
    done = fresh.post("/login/code", data={"code": _code(secret, 1), "csrf_token": token})
    assert done.status_code == 302
    assert fresh.get("/o/acme-test/").status_code == 200


def test_turning_two_factor_off_takes_the_password_and_a_code(acme, sign_in):
    browser = sign_in(acme.admin.email)
    browser.client.post(
        "/account/two-factor/start", data={"password": PASSWORD, "csrf_token": browser.csrf_token}
    )
    secret = _pending_secret(acme.admin.user_id)
    browser.client.post(
        "/account/two-factor/confirm",
        data={"code": _code(secret), "csrf_token": browser.csrf_token},
    )
    form = {"password": "wrong", "code": _code(secret, 1), "csrf_token": browser.csrf_token}
    refused = browser.client.post("/account/two-factor/disable", data=form)
    assert refused.status_code == 422
    assert "That is not your current password." in refused.get_data(as_text=True)

    off = browser.client.post("/account/two-factor/disable", data={**form, "password": PASSWORD})
    assert off.status_code == 302
    assert "Set up two-factor sign-in" in browser.client.get("/account/two-factor").get_data(
        as_text=True
    )


def test_an_organization_asking_admins_for_a_second_factor_sends_them_to_set_it_up(
    acme, make_member, sign_in
):
    bob = make_member(acme.org, "Bob Builder")
    admin = sign_in(acme.admin.email)
    # An admin turns it on only after their own account has it.
    refused = admin.client.post(
        "/o/acme-test/admin/members/settings",
        data={"require_admin_two_factor": "y", "csrf_token": admin.csrf_token},
    )
    assert refused.status_code == 422
    assert "Turn on two-factor sign-in for your own account first" in refused.get_data(as_text=True)
    admin.client.post(
        "/account/two-factor/start", data={"password": PASSWORD, "csrf_token": admin.csrf_token}
    )
    secret = _pending_secret(acme.admin.user_id)
    admin.client.post(
        "/account/two-factor/confirm", data={"code": _code(secret), "csrf_token": admin.csrf_token}
    )
    saved = admin.client.post(
        "/o/acme-test/admin/members/settings",
        data={"require_admin_two_factor": "y", "csrf_token": admin.csrf_token},
    )
    assert saved.status_code == 303
    assert admin.client.get("/o/acme-test/admin/members/").status_code == 200

    # Another admin without it reaches their documents, but not the admin pages.
    from portal.accounts import services

    services.set_member_roles(acme.admin.actor, bob.member_id, ["admin"])
    other = sign_in(bob.email)
    assert other.client.get("/o/acme-test/documents/").status_code == 200
    sent = other.client.get("/o/acme-test/admin/members/")
    assert sent.status_code == 302
    assert sent.headers["Location"].startswith("/account/two-factor?next=")


# --- leaving ---------------------------------------------------------------------------------


def test_leaving_an_organization_from_the_account_page(acme, make_member, sign_in):
    bob = make_member(acme.org, "Bob Builder")
    browser = sign_in(bob.email)
    page = browser.client.get("/account/").get_data(as_text=True)
    assert "Acme Test" in page and 'href="/account/organizations/acme-test/leave"' in page
    asked = browser.client.get("/account/organizations/acme-test/leave").get_data(as_text=True)
    assert "Leave Acme Test?" in asked and "Only a new invitation brings you back." in asked
    assert browser.client.get("/o/acme-test/").status_code == 200  # asking changed nothing
    # Not someone else's organization: an organization one is not in does not exist.
    assert (
        browser.client.post(
            "/account/organizations/globex-test/leave", data={"csrf_token": browser.csrf_token}
        ).status_code
        == 404
    )

    left = browser.client.post(
        "/account/organizations/acme-test/leave", data={"csrf_token": browser.csrf_token}
    )

    assert left.status_code == 302
    assert "You have left Acme Test." in browser.client.get("/account/").get_data(as_text=True)
    assert browser.client.get("/o/acme-test/").status_code == 404


def test_turning_two_factor_on_ends_every_other_session(acme, sign_in):
    here, elsewhere = sign_in(acme.admin.email), sign_in(acme.admin.email)
    here.client.post(
        "/account/two-factor/start", data={"password": PASSWORD, "csrf_token": here.csrf_token}
    )
    secret = _pending_secret(acme.admin.user_id)
    assert elsewhere.client.get("/o/acme-test/").status_code == 200

    here.client.post(
        "/account/two-factor/confirm", data={"code": _code(secret), "csrf_token": here.csrf_token}
    )

    assert here.client.get("/o/acme-test/").status_code == 200
    assert elsewhere.client.get("/o/acme-test/").status_code == 302  # whoever held it is out


def test_a_lost_phone_is_replaced_with_a_recovery_code(acme, sign_in):
    browser = sign_in(acme.admin.email)
    browser.client.post(
        "/account/two-factor/start", data={"password": PASSWORD, "csrf_token": browser.csrf_token}
    )
    secret = _pending_secret(acme.admin.user_id)
    page = browser.client.post(
        "/account/two-factor/confirm",
        data={"code": _code(secret), "csrf_token": browser.csrf_token},
    ).get_data(as_text=True)
    recovery = re.findall(r"<li>([a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4})</li>", page)[0]
    form = {"password": PASSWORD, "code": "not-a-code", "csrf_token": browser.csrf_token}
    assert browser.client.post("/account/two-factor/disable", data=form).status_code == 422

    off = browser.client.post("/account/two-factor/disable", data={**form, "code": recovery})

    assert off.status_code == 302
    browser.client.post(
        "/account/two-factor/start", data={"password": PASSWORD, "csrf_token": browser.csrf_token}
    )
    assert _pending_secret(acme.admin.user_id) != secret  # a new phone, a new secret


def test_a_reset_is_looked_up_on_a_worker_so_the_request_itself_touches_nothing(app, acme):
    from portal.accounts.models import AccountToken
    from tests.conftest import run_queued_jobs

    browser = app.test_client()
    browser.post(
        "/password/forgot",
        data={"email": acme.admin.email, "csrf_token": _token(browser, "/password/forgot")},
    )
    with platform_work(user_id=acme.admin.user_id) as uow:
        assert uow.session.scalar(select(AccountToken.id)) is None
    assert run_queued_jobs() == 1
    with platform_work(user_id=acme.admin.user_id) as uow:
        assert uow.session.scalar(select(AccountToken.id)) is not None
