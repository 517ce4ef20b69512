"""An admin invites a new member; the mail reaches a real SMTP server; the person follows
the link, chooses a password, signs in, turns on two-factor sign-in, and signs in again
with a code — on a desktop and on a 390 px phone."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from portal.demo import DEMO_PASSWORD
from portal.domain.credentials import time_step, totp_code

PASSWORD = "my own long passphrase"


def _sign_in(page: Page, email: str, password: str) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def _sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/login$"))


def _code(secret: str, ahead: int = 0) -> str:
    return totp_code(secret.replace(" ", ""), time_step(datetime.now(UTC)) + ahead)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_an_invited_person_joins_sets_up_two_factor_and_signs_in_with_a_code(
    page: Page, e2e_mailbox, viewport: str
):
    if viewport == "phone":
        page.set_viewport_size({"width": 390, "height": 844})
    email = f"newcomer-{uuid.uuid4().hex[:6]}@acme.example"
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)

    # The admin invites: the page says it is on its way, and shows no password.
    _sign_in(page, "grace@acme.example", DEMO_PASSWORD)
    page.goto("/o/acme/admin/members/")
    page.get_by_label("Full name").fill("Nadia Newcomer")
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send invitation").click()
    expect(page.get_by_role("status")).to_contain_text(f"An invitation is on its way to {email}")
    expect(page.get_by_test_id("invitations")).to_contain_text("Nadia Newcomer")
    screenshot(page, f"members-invited-{viewport}")
    assert axe_violations(page) == []
    _sign_out(page)

    # The mail arrives; the person follows its link on their own.
    [mail] = e2e_mailbox.wait_for(email)
    assert "Acme Trading" in mail.subject
    page.goto(mail.link("/invitations/"))
    expect(page.get_by_role("heading", name=re.compile("Join Acme Trading"))).to_be_visible()
    screenshot(page, f"invitation-{viewport}")
    assert axe_violations(page) == []
    page.get_by_label("Your name").fill("Nadia Newcomer")
    page.get_by_label("New password", exact=True).fill(PASSWORD)
    page.get_by_label("New password again").fill(PASSWORD)
    page.get_by_role("button", name="Create account and join").click()
    expect(page).to_have_url(re.compile(r"/o/acme/$"))
    expect(page.get_by_role("status")).to_contain_text("Your account is ready")
    _sign_out(page)

    _sign_in(page, email, PASSWORD)
    expect(page).to_have_url(re.compile(r"/o/acme/$"))

    # Two-factor sign-in: scan (here: read the key), type a code, keep the recovery codes.
    page.get_by_role("link", name="Nadia Newcomer").click()
    page.get_by_role("link", name="Two-factor sign-in").click()
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Set up two-factor sign-in").click()
    expect(page.get_by_role("img", name=re.compile("QR code"))).to_be_visible()
    secret = page.get_by_test_id("totp-secret").inner_text()
    screenshot(page, f"two-factor-setup-{viewport}")
    assert axe_violations(page) == []
    page.get_by_label("Authentication code").fill(_code(secret))
    page.get_by_role("button", name="Turn on").click()
    expect(page.get_by_test_id("recovery-codes").get_by_role("listitem")).to_have_count(10)
    screenshot(page, f"two-factor-codes-{viewport}")
    _sign_out(page)

    # Signing in now takes the password, then a code.
    _sign_in(page, email, PASSWORD)
    expect(page).to_have_url(re.compile(r"/login/code$"))
    expect(page.get_by_role("heading", name="Two-factor sign-in")).to_be_visible()
    screenshot(page, f"second-factor-{viewport}")
    assert axe_violations(page) == []
    page.get_by_label("Authentication code").fill(_code(secret, 1))
    page.get_by_role("button", name="Continue").click()
    expect(page).to_have_url(re.compile(r"/o/acme/$"))
    expect(page.get_by_role("heading", name=re.compile("Welcome, Nadia Newcomer"))).to_be_visible()

    assert [e for e in console_errors if "Content Security Policy" in e] == []
