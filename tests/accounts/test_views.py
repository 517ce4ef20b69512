"""Accounts pages: sign-in and sign-out, next=, tenancy in the URL, members admin, locale,
the device that signed in before, two-factor sign-in through the pages."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from portal.accounts import queries as account_queries
from portal.accounts import services
from portal.domain.actor import Role
from tests.factories import PASSWORD, csrf_token_from, locale_of, post_login, system_actor

MEMBERS = "/o/acme-test/admin/members/"


def _signed_out(response) -> bool:
    return response.status_code == 302 and response.headers["Location"].startswith("/login")


def _member_url(member_id: int, action: str = "") -> str:
    return f"{MEMBERS}{member_id}" + (f"/{action}" if action else "")


# --- sign-in ----------------------------------------------------------------------------


def test_signing_in_leads_to_the_organizations(client, acme):
    response = post_login(client, acme.admin.email, PASSWORD)
    assert response.status_code == 302
    assert response.headers["Location"] == "/orgs"
    assert client.get("/o/acme-test/").status_code == 200


def test_a_wrong_password_and_an_unknown_email_get_the_same_answer(app, acme):
    assert post_login(app.test_client(), acme.admin.email, PASSWORD).status_code == 302

    wrong_password = post_login(app.test_client(), acme.admin.email, "not it")
    unknown_email = post_login(app.test_client(), "nobody@example.test", PASSWORD)
    assert wrong_password.status_code == unknown_email.status_code == 401
    message = "That email and password do not match an active account."
    assert message in wrong_password.get_data(as_text=True)
    assert message in unknown_email.get_data(as_text=True)


def test_five_failed_sign_ins_throttle_the_account_with_a_wait_in_minutes(app, acme):
    assert post_login(app.test_client(), acme.admin.email, PASSWORD).status_code == 302

    attacker = app.test_client()
    for _ in range(5):
        assert post_login(attacker, acme.admin.email, "guess").status_code == 401
    throttled = post_login(app.test_client(), acme.admin.email, PASSWORD)
    assert throttled.status_code == 429
    assert 899 <= int(throttled.headers["Retry-After"]) <= 900
    html = throttled.get_data(as_text=True)
    assert "or try again in 15 minutes." in html
    assert 'name="code"' in html  # the page asks for a code with the password


def test_a_browser_that_signed_in_before_is_not_locked_out_by_a_stranger(app, acme):
    owner = app.test_client()
    assert post_login(owner, acme.admin.email, PASSWORD).status_code == 302
    owner.post(
        "/logout",
        data={
            "csrf_token": csrf_token_from(
                owner.get("/orgs", follow_redirects=True).get_data(as_text=True)
            )
        },
    )

    stranger = app.test_client()
    for _ in range(8):
        post_login(stranger, acme.admin.email, "guess")
    assert post_login(app.test_client(), acme.admin.email, PASSWORD).status_code == 429

    again = post_login(owner, acme.admin.email, PASSWORD)  # the device cookie goes along
    assert again.status_code == 302
    assert owner.get("/o/acme-test/").status_code == 200


def test_behind_a_trusted_proxy_each_client_is_counted_on_its_own(app, acme, monkeypatch):
    from portal.web.security import trust_proxies

    monkeypatch.setattr(app, "wsgi_app", app.wsgi_app)  # put back after the test
    trust_proxies(app, 1)  # PORTAL_TRUSTED_PROXIES=1

    def from_(address: str):
        client = app.test_client()
        client.environ_base["HTTP_X_FORWARDED_FOR"] = address
        return client

    assert post_login(from_("192.0.2.1"), acme.admin.email, PASSWORD).status_code == 302
    noisy = from_("192.0.2.66")
    for n in range(20):
        post_login(noisy, f"guess.{n}@example.test", "wrong")
    assert post_login(noisy, acme.admin.email, PASSWORD).status_code == 429
    # Everyone else reaches the same proxy, and is not the noisy client.
    assert post_login(from_("192.0.2.2"), acme.admin.email, PASSWORD).status_code == 302


def test_after_sign_in_a_same_site_next_is_followed(client, acme):
    response = post_login(client, acme.admin.email, PASSWORD, next="/o/acme-test/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/o/acme-test/"


def test_after_sign_in_an_off_site_next_is_ignored(app, acme):
    allowed = post_login(app.test_client(), acme.admin.email, PASSWORD, next="/o/acme-test/")
    assert allowed.headers["Location"] == "/o/acme-test/"

    for evil in (
        "//evil",
        "/\\evil",
        "/%09/evil",
        "http:///evil",
        "https://evil.example/",
        "javascript:alert(1)",
    ):
        response = post_login(app.test_client(), acme.admin.email, PASSWORD, next=evil)
        assert response.status_code == 302, evil
        assert response.headers["Location"] == "/orgs", evil
    # A raw tab never gets as far as sign-in: the request layer refuses it, naming the field.
    refused = post_login(app.test_client(), acme.admin.email, PASSWORD, next="/\t/evil")
    assert refused.status_code == 400
    assert "Location" not in refused.headers
    assert "“next” contains a control character" in refused.get_data(as_text=True)


def test_a_signed_out_visitor_is_sent_to_sign_in_and_back(client, acme):
    response = client.get("/o/acme-test/")
    assert _signed_out(response)
    (next_target,) = parse_qs(urlsplit(response.headers["Location"]).query)["next"]
    assert next_target == "/o/acme-test/"
    signed_in = post_login(client, acme.admin.email, PASSWORD, next=next_target)
    assert signed_in.headers["Location"] == "/o/acme-test/"


# --- sign-out and server-side session invalidation ---------------------------------------


def test_a_session_cookie_copied_before_sign_out_no_longer_signs_anyone_in(client, acme, login):
    token = login(acme.admin)
    copied = client.get_cookie("session").value
    assert client.get("/o/acme-test/").status_code == 200

    signed_out = client.post("/logout", data={"csrf_token": token})
    assert signed_out.status_code == 302
    assert signed_out.headers["Location"] == "/login"

    client.set_cookie("session", copied)
    assert _signed_out(client.get("/o/acme-test/"))
    assert _signed_out(client.get("/orgs"))


def test_signing_out_in_one_browser_ends_the_session_in_every_other(acme, sign_in):
    laptop = sign_in(acme.admin.email)
    phone = sign_in(acme.admin.email)
    assert phone.client.get("/o/acme-test/").status_code == 200

    laptop.client.post("/logout", data={"csrf_token": laptop.csrf_token})
    assert _signed_out(phone.client.get("/o/acme-test/"))


def test_a_session_version_bumped_on_the_server_signs_the_browser_out(acme, sign_in):
    browser = sign_in(acme.admin.email)
    assert browser.client.get("/o/acme-test/").status_code == 200

    services.end_sessions(acme.admin.user_id)
    assert _signed_out(browser.client.get("/o/acme-test/"))


def test_an_ended_session_is_told_so_while_a_new_visitor_is_simply_asked_to_sign_in(
    app, acme, sign_in
):
    visitor = app.test_client().get("/o/acme-test/", follow_redirects=True)
    assert "Please sign in to continue." in visitor.get_data(as_text=True)

    browser = sign_in(acme.admin.email)
    services.end_sessions(acme.admin.user_id)
    page = browser.client.get("/o/acme-test/", follow_redirects=True).get_data(as_text=True)
    assert "Your session has ended. Please sign in again." in page
    assert "Please sign in to continue." not in page


def test_an_htmx_request_without_a_session_asks_for_a_full_page_sign_in(app, acme, sign_in):
    browser = sign_in(acme.admin.email)
    assert browser.client.get("/o/acme-test/", headers={"HX-Request": "true"}).status_code == 200

    anonymous = app.test_client().get("/o/acme-test/", headers={"HX-Request": "true"})
    assert anonymous.status_code == 401
    assert anonymous.headers["HX-Redirect"] == "/login?next=/o/acme-test/"


def test_a_deactivated_account_is_signed_out_at_its_next_request(acme, sign_in):
    browser = sign_in(acme.admin.email)
    assert browser.client.get("/o/acme-test/").status_code == 200

    services.set_account_active(acme.admin.email, False)
    assert _signed_out(browser.client.get("/o/acme-test/"))


def test_sign_out_needs_a_csrf_token(acme, make_member, sign_in):
    bob = sign_in(make_member(acme.org, "Bob Builder").email)
    allowed = bob.client.post("/logout", data={"csrf_token": bob.csrf_token})
    assert allowed.status_code == 302
    assert _signed_out(bob.client.get("/o/acme-test/"))

    alice = sign_in(acme.admin.email)
    refused = alice.client.post("/logout")
    assert refused.status_code == 400
    assert alice.client.get("/o/acme-test/").status_code == 200


# --- tenancy in the URL -----------------------------------------------------------------


def _normalised(html: str, slug: str) -> str:
    """The page with what legitimately differs between requests blanked out."""
    html = re.sub(r'(name="csrf[-_]token"[^>]*?(?:content|value)=")[^"]+', r"\1…", html)
    return html.replace(slug, "SLUG")


def test_a_member_reaches_their_org_but_another_org_looks_like_no_org_at_all(
    client, acme, globex, login
):
    login(acme.admin)
    assert client.get("/o/acme-test/").status_code == 200

    foreign = client.get("/o/globex-test/")
    missing = client.get("/o/does-not-exist/")
    assert foreign.status_code == missing.status_code == 404
    assert "Globex" not in foreign.get_data(as_text=True)
    assert _normalised(foreign.get_data(as_text=True), "globex-test") == _normalised(
        missing.get_data(as_text=True), "does-not-exist"
    )


def test_another_orgs_admin_pages_are_not_found_rather_than_forbidden(client, acme, globex, login):
    login(acme.admin)
    assert client.get(MEMBERS).status_code == 200
    assert client.get("/o/globex-test/admin/members/").status_code == 404
    assert client.get(f"/o/globex-test/admin/members/{globex.admin.member_id}").status_code == 404


def test_an_anonymous_visitor_is_sent_to_sign_in_whether_or_not_the_org_exists(
    app, client, acme, login
):
    login(acme.admin)
    assert client.get("/o/acme-test/").status_code == 200

    anonymous = app.test_client()
    existing = anonymous.get("/o/acme-test/")
    missing = anonymous.get("/o/does-not-exist/")
    assert _signed_out(existing)
    assert _signed_out(missing)


def test_an_inactive_membership_no_longer_opens_the_org(acme, make_member, sign_in):
    bob = make_member(acme.org, "Bob Builder")
    browser = sign_in(bob.email)
    assert browser.client.get("/o/acme-test/").status_code == 200

    services.deactivate_member(acme.admin.actor, bob.member_id)
    assert browser.client.get("/o/acme-test/").status_code == 404


# --- members admin ----------------------------------------------------------------------


def test_an_admin_sees_the_members_page_and_a_plain_member_is_forbidden(acme, make_member, sign_in):
    bob = make_member(acme.org, "Bob Builder")
    admin = sign_in(acme.admin.email)
    page = admin.client.get(MEMBERS)
    assert page.status_code == 200
    assert bob.email in page.get_data(as_text=True)

    member = sign_in(bob.email)
    assert member.client.get("/o/acme-test/").status_code == 200
    assert member.client.get(MEMBERS).status_code == 403
    refused = member.client.post(
        MEMBERS + "invitations",
        data={"name": "Eve", "email": "eve@example.test", "csrf_token": member.csrf_token},
    )
    assert refused.status_code == 403
    assert services.members_overview(acme.admin.actor).invitations == []


def test_an_admin_invites_someone_and_the_page_shows_no_password(acme, sign_in, mailbox):
    admin = sign_in(acme.admin.email)
    sent = admin.client.post(
        MEMBERS + "invitations",
        data={"name": "Nina New", "email": "nina@example.test", "csrf_token": admin.csrf_token},
    )
    assert sent.status_code == 303  # a reload of the page sends nothing again
    html = admin.client.get(sent.headers["Location"]).get_data(as_text=True)
    assert "An invitation is on its way to nina@example.test." in html
    assert 'data-testid="invitations"' in html and "Nina New" in html
    assert "password" not in html.lower().split("invite someone")[0]


def test_a_member_cannot_be_invited_again_and_is_told_so_inline(acme, make_member, sign_in):
    make_member(acme.org, "Dora Dup", email="dora@example.test")
    admin = sign_in(acme.admin.email)
    form = {"name": "Nora New", "email": "nora@example.test", "csrf_token": admin.csrf_token}
    assert admin.client.post(MEMBERS + "invitations", data=form).status_code == 303

    again = admin.client.post(MEMBERS + "invitations", data={**form, "email": "DORA@example.test"})
    assert again.status_code == 422
    html = again.get_data(as_text=True)
    assert re.search(
        r'<p class="field-error" id="email-error">[^<]*'
        r"dora@example\.test is already a member of this organization\.",
        html,
    ), html
    emails = [m.email for m in account_queries.list_members(acme.admin.actor)]
    assert emails.count("dora@example.test") == 1


def test_a_malformed_email_is_refused_inline(acme, sign_in):
    admin = sign_in(acme.admin.email)
    assert (
        admin.client.post(
            MEMBERS + "invitations",
            data={"name": "Good", "email": "good@example.test", "csrf_token": admin.csrf_token},
        ).status_code
        == 303
    )

    bad = admin.client.post(
        MEMBERS + "invitations",
        data={"name": "Bad", "email": "not-an-email", "csrf_token": admin.csrf_token},
    )
    assert bad.status_code == 422
    assert 'id="email-error"' in bad.get_data(as_text=True)
    assert len(services.members_overview(acme.admin.actor).invitations) == 1


def test_an_admin_deactivates_and_reactivates_a_member(acme, make_member, sign_in):
    bob = make_member(acme.org, "Bob Builder")
    admin = sign_in(acme.admin.email)

    done = admin.client.post(
        _member_url(bob.member_id, "deactivate"), data={"csrf_token": admin.csrf_token}
    )
    assert done.status_code == 302
    assert done.headers["Location"] == _member_url(bob.member_id)
    page = admin.client.get(done.headers["Location"]).get_data(as_text=True)
    assert "Membership deactivated." in page
    assert account_queries.get_member(acme.admin.actor, bob.member_id).active is False

    admin.client.post(
        _member_url(bob.member_id, "reactivate"), data={"csrf_token": admin.csrf_token}
    )
    assert account_queries.get_member(acme.admin.actor, bob.member_id).active is True


def test_an_admin_cannot_deactivate_their_own_membership_from_the_page(acme, make_member, sign_in):
    bob = make_member(acme.org, "Bob Builder")
    admin = sign_in(acme.admin.email)
    allowed = admin.client.post(
        _member_url(bob.member_id, "deactivate"), data={"csrf_token": admin.csrf_token}
    )
    assert allowed.status_code == 302

    refused = admin.client.post(
        _member_url(acme.admin.member_id, "deactivate"), data={"csrf_token": admin.csrf_token}
    )
    assert refused.status_code == 303
    page = admin.client.get(refused.headers["Location"]).get_data(as_text=True)
    assert "You cannot deactivate your own membership." in page
    assert account_queries.get_member(acme.admin.actor, acme.admin.member_id).active is True


def test_removing_the_admin_role_from_the_last_admin_is_refused(acme, make_member, sign_in):
    olga = make_member(acme.org, "Olga Other", roles=(Role.ADMIN,))
    admin = sign_in(acme.admin.email)
    allowed = admin.client.post(
        _member_url(olga.member_id, "roles"),
        data={"auditor": "y", "csrf_token": admin.csrf_token},
    )
    assert allowed.status_code == 302
    assert account_queries.get_member(acme.admin.actor, olga.member_id).roles == ("auditor",)

    refused = admin.client.post(
        _member_url(acme.admin.member_id, "roles"),
        data={"auditor": "y", "csrf_token": admin.csrf_token},
    )
    assert refused.status_code == 422
    assert "An organization needs at least one active admin" in refused.get_data(as_text=True)
    assert account_queries.get_member(acme.admin.actor, acme.admin.member_id).roles == ("admin",)


def test_an_admin_posting_to_another_orgs_member_gets_404_and_changes_nothing(
    acme, globex, make_member, sign_in
):
    bob = make_member(acme.org, "Bob Builder")
    admin = sign_in(acme.admin.email)
    token = {"csrf_token": admin.csrf_token}
    assert admin.client.get(_member_url(bob.member_id)).status_code == 200
    assert admin.client.post(_member_url(bob.member_id, "deactivate"), data=token).status_code == (
        302
    )

    foreign = globex.admin.member_id
    assert admin.client.get(_member_url(foreign)).status_code == 404
    for action, form in (
        ("deactivate", token),
        ("reactivate", token),
        ("roles", {**token, "auditor": "y"}),
    ):
        response = admin.client.post(_member_url(foreign, action), data=form)
        assert response.status_code == 404, action
    untouched = account_queries.get_member(globex.admin.actor, foreign)
    assert untouched.active is True
    assert untouched.roles == ("admin",)


# --- locale -----------------------------------------------------------------------------


def test_choosing_a_language_saves_it_on_the_account_and_the_pages_follow(acme, sign_in):
    browser = sign_in(acme.admin.email)
    assert '<html lang="en">' in browser.client.get("/o/acme-test/").get_data(as_text=True)

    response = browser.client.post(
        "/locale",
        data={"locale": "zh", "next": "/o/acme-test/", "csrf_token": browser.csrf_token},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == "/o/acme-test/"
    assert locale_of(acme.admin.email) == "zh"
    assert '<html lang="zh">' in browser.client.get("/o/acme-test/").get_data(as_text=True)

    # The choice belongs to the account: another browser signing in gets it too.
    other = sign_in(acme.admin.email)
    assert '<html lang="zh">' in other.client.get("/o/acme-test/").get_data(as_text=True)


def test_an_unsupported_language_is_ignored(acme, sign_in):
    browser = sign_in(acme.admin.email)
    browser.client.post("/locale", data={"locale": "ms", "csrf_token": browser.csrf_token})
    assert locale_of(acme.admin.email) == "ms"

    browser.client.post("/locale", data={"locale": "xx", "csrf_token": browser.csrf_token})
    assert locale_of(acme.admin.email) == "ms"
    assert '<html lang="ms">' in browser.client.get("/o/acme-test/").get_data(as_text=True)


def test_the_language_picker_does_not_redirect_off_site(acme, sign_in):
    browser = sign_in(acme.admin.email)
    stay = browser.client.post(
        "/locale", data={"locale": "en", "next": "/orgs", "csrf_token": browser.csrf_token}
    )
    assert stay.headers["Location"] == "/orgs"

    away = browser.client.post(
        "/locale", data={"locale": "en", "next": "//evil", "csrf_token": browser.csrf_token}
    )
    assert away.status_code == 302
    assert away.headers["Location"] == "/"


# --- organization switcher --------------------------------------------------------------


def _switcher(html: str) -> str:
    match = re.search(r'<nav class="org-switcher".*?</nav>', html, re.S)
    assert match, "no organization switcher on the page"
    return match.group(0)


def test_a_user_in_one_org_goes_straight_to_its_dashboard(client, acme, globex, login):
    login(acme.admin)
    response = client.get("/orgs")
    assert response.status_code == 302
    assert response.headers["Location"] == "/o/acme-test/"


def test_a_user_in_two_orgs_chooses_between_them_in_the_switcher(acme, globex, make_org, sign_in):
    make_org("initech-test", "Initech Test")  # exists, but the user is not a member
    services.enrol_member(system_actor(globex.org), email=acme.admin.email)
    browser = sign_in(acme.admin.email)
    response = browser.client.get("/orgs")
    assert response.status_code == 200
    switcher = _switcher(response.get_data(as_text=True))
    assert 'href="/o/acme-test/"' in switcher
    assert 'href="/o/globex-test/"' in switcher
    assert "Acme Test" in switcher
    assert "Globex Test" in switcher
    assert "Initech" not in switcher
    assert browser.client.get("/o/globex-test/").status_code == 200
