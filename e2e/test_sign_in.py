"""A demo admin signs in, reads the portal in Chinese, and signs out."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import axe_violations, screenshot
from portal.demo import DEMO_PASSWORD


def sign_in(page: Page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_an_admin_signs_in_switches_to_chinese_and_signs_out(page: Page):
    sign_in(page, "grace@acme.example")
    expect(page).to_have_url(re.compile(r"/o/acme/$"))
    nav = page.get_by_role("navigation", name="Main navigation")
    expect(nav.get_by_role("link", name="Members")).to_be_visible()
    expect(nav.get_by_role("link", name="Org chart")).to_be_visible()

    page.get_by_label("Language").select_option("zh")
    page.get_by_role("button", name="Change").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    nav = page.get_by_role("navigation", name="主导航")
    expect(nav.get_by_role("link", name="成员")).to_be_visible()
    expect(nav.get_by_role("link", name="组织架构")).to_be_visible()
    screenshot(page, "dashboard-zh")

    page.get_by_role("button", name="退出登录").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    expect(page.get_by_role("heading", name="登录")).to_be_visible()

    # The choice is remembered for the account: put it back for the tests that follow.
    page.get_by_label("语言").select_option("en")
    page.get_by_role("button", name="切换").click()
    sign_in(page, "grace@acme.example")
    page.get_by_label("语言").select_option("en")
    page.get_by_role("button", name="切换").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_role("button", name="Sign out").click()
    page.goto("/o/acme/")
    expect(page).to_have_url(re.compile(r"/login\?next="))


def test_a_wrong_password_is_refused_with_a_clear_message(page: Page):
    page.goto("/login")
    page.get_by_label("Email").fill("grace@acme.example")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("do not match an active account")


def test_the_admin_pages_pass_the_accessibility_check(page: Page):
    page.goto("/login")
    assert axe_violations(page) == []
    sign_in(page, "aisha@acme.example")
    for path, name in (
        ("/o/acme/", "dashboard"),
        ("/o/acme/admin/members/", "members"),
        ("/o/acme/admin/chart/", "chart"),
        ("/o/acme/admin/chart/import", "import"),
    ):
        page.goto(path)
        screenshot(page, name)
        assert axe_violations(page) == [], name


def test_keyboard_alone_reaches_sign_in(page: Page):
    page.goto("/login")
    page.keyboard.press("Tab")  # skip link first
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.get_by_label("Email").focus()
    page.keyboard.type("hannah@acme.example")
    page.keyboard.press("Tab")
    page.keyboard.type(DEMO_PASSWORD)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/o/acme/$"))
