"""Web safety rules (DESIGN §10): redirect targets, CSRF, cookies and response headers."""

from __future__ import annotations

import pytest

from portal.core.security import is_safe_next
from tests.factories import csrf_token_from

CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
CSRF_MESSAGE = "Your form expired or came from another site. Reload the page and try again."


# --- next= targets ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    ["/o/acme/", "/o/acme/inbox?page=2", "/orgs", "/o/acme/admin/members/#add-member"],
)
def test_a_same_site_path_is_a_safe_next_target(target):
    assert is_safe_next(target)


@pytest.mark.parametrize(
    "target",
    [
        "//evil",
        "//evil.example/o/acme/",
        "/\\evil",
        "/%09/evil",  # a tab the browser would drop, still encoded
        "/\t/evil",  # the same tab once the query string is decoded
        "/%5Cevil",
        "/%2F/evil",
        "http:///evil",
        "https://evil.example/",
        "javascript:alert(1)",
        "o/acme/",
        "",
        None,
    ],
)
def test_anything_that_could_leave_the_site_is_not_a_safe_next_target(target):
    assert is_safe_next("/o/acme/")  # the allowed shape, for contrast
    assert not is_safe_next(target)


# --- CSRF -------------------------------------------------------------------------------


def test_a_sign_in_post_without_a_csrf_token_is_refused_and_signs_nobody_in(app, acme):
    browser = app.test_client()
    token = csrf_token_from(browser.get("/login").get_data(as_text=True))
    allowed = browser.post(
        "/login",
        data={"email": acme.admin.email, "password": acme.admin.password, "csrf_token": token},
    )
    assert allowed.status_code == 302

    stranger = app.test_client()
    stranger.get("/login")
    refused = stranger.post(
        "/login", data={"email": acme.admin.email, "password": acme.admin.password}
    )
    assert refused.status_code == 400
    assert CSRF_MESSAGE in refused.get_data(as_text=True)
    still_out = stranger.get("/orgs")
    assert still_out.status_code == 302
    assert still_out.headers["Location"].startswith("/login")


def test_a_csrf_token_from_another_session_is_refused(app, acme):
    mine = app.test_client()
    token = csrf_token_from(mine.get("/login").get_data(as_text=True))
    assert mine.post("/locale", data={"locale": "en", "csrf_token": token}).status_code == 302

    theirs = app.test_client()
    theirs.get("/login")
    response = theirs.post(
        "/login",
        data={"email": acme.admin.email, "password": acme.admin.password, "csrf_token": token},
    )
    assert response.status_code == 400
    assert CSRF_MESSAGE in response.get_data(as_text=True)


def test_an_htmx_post_carries_its_csrf_token_in_the_header_instead_of_the_form(client):
    token = csrf_token_from(client.get("/login").get_data(as_text=True))
    allowed = client.post(
        "/locale",
        data={"locale": "ms"},
        headers={"X-CSRFToken": token, "HX-Request": "true"},
    )
    assert allowed.status_code == 302
    assert '<html lang="ms">' in client.get("/login").get_data(as_text=True)

    # htmx sends "Accept: */*"; it still gets a fragment to show, not JSON.
    refused = client.post(
        "/locale", data={"locale": "zh"}, headers={"HX-Request": "true", "Accept": "*/*"}
    )
    assert refused.status_code == 400
    # The fragment is in the reader's language (now Malay): check its code.
    assert 'data-error-code="csrf_failed"' in refused.get_data(as_text=True)
    assert '<html lang="ms">' in client.get("/login").get_data(as_text=True)


# --- cookies ----------------------------------------------------------------------------


def _session_set_cookie(response) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]
    assert cookies, "the response set no session cookie"
    return cookies[0]


def test_the_session_cookie_is_http_only_and_same_site_lax(client):
    cookie = _session_set_cookie(client.get("/login"))
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # the test settings leave secure_cookies off


def test_the_session_cookie_is_secure_when_the_app_config_asks_for_it(app, client):
    saved = app.config["SESSION_COOKIE_SECURE"]
    app.config["SESSION_COOKIE_SECURE"] = True
    try:
        cookie = _session_set_cookie(client.get("/login"))
    finally:
        app.config["SESSION_COOKIE_SECURE"] = saved
    assert "Secure" in cookie
    assert "HttpOnly" in cookie


def test_settings_with_secure_cookies_make_every_auth_cookie_secure(app, settings, monkeypatch):
    from portal.app import create_app
    from portal.core.db import db
    from portal.core.queue import redis_holder

    # create_app reconfigures the process-wide engine and Redis; keep the test's own.
    monkeypatch.setattr(db, "configure", lambda *args, **kwargs: None)
    monkeypatch.setattr(redis_holder, "configure", lambda *args, **kwargs: None)
    assert not app.config["SESSION_COOKIE_SECURE"]

    secure = create_app(settings.with_(secure_cookies=True))
    assert secure.config["SESSION_COOKIE_SECURE"] is True
    assert secure.config["REMEMBER_COOKIE_SECURE"] is True
    cookie = _session_set_cookie(secure.test_client().get("/login"))
    assert "Secure" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie


def test_production_settings_default_to_secure_cookies():
    from portal.config import Settings

    assert not Settings.from_env({"PORTAL_ENV": "development"}).secure_cookies
    production = {
        "PORTAL_ENV": "production",
        "PORTAL_DATABASE_URL": "postgresql+psycopg://app@db/countersign",
        "PORTAL_REDIS_URL": "redis://redis:6379/0",
        "PORTAL_SMTP_HOST": "smtp.example.com",
        "PORTAL_BASE_URL": "https://countersign.example.com",
    }
    assert Settings.from_env(production).secure_cookies


# --- headers ----------------------------------------------------------------------------


def test_every_html_page_carries_the_security_headers(client, acme, login):
    login(acme.admin)
    for path in ("/login", "/o/acme-test/", "/o/does-not-exist/"):
        response = client.get(path)
        assert response.mimetype == "text/html", path
        headers = response.headers
        assert headers["Content-Security-Policy"] == CSP, path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["X-Frame-Options"] == "DENY", path
        assert headers["Cache-Control"] == "no-store", path
        assert "Cookie" in headers.get("Vary", ""), path


def test_pages_load_no_inline_script_the_policy_would_block(client):
    html = client.get("/login").get_data(as_text=True)
    assert "<script>" not in html
    assert "<script " in html  # scripts come from files on this site
    assert "onclick=" not in html
    assert "<style" not in html
