"""Factories as fixtures: organizations and members built through the real services."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient

from portal.accounts import queries as account_queries
from portal.accounts import services as accounts
from portal.accounts.models import Organization
from portal.demo import DEMO_PASSWORD, seed_demo
from portal.domain.actor import Actor, Role, SystemActor
from portal.orgchart import services as orgchart
from portal.provisioning import provision_organization

PASSWORD = "correct horse battery staple"
_counter = itertools.count(1)


@dataclass(frozen=True)
class Person:
    actor: Actor
    email: str
    name: str
    password: str = PASSWORD

    @property
    def member_id(self) -> int:
        return self.actor.member_id

    @property
    def user_id(self) -> int:
        return self.actor.user_id


def system_actor(org: Organization) -> SystemActor:
    return SystemActor(org_id=org.id, org_slug=org.slug)


@pytest.fixture
def make_org(app) -> Callable[..., Organization]:
    def make(slug: str | None = None, name: str | None = None, **kw: str) -> Organization:
        n = next(_counter)
        return provision_organization(slug or f"org-{n}", name or f"Organization {n}", **kw)

    return make


@pytest.fixture
def make_member(app) -> Callable[..., Person]:
    def make(
        org: Organization,
        name: str | None = None,
        *,
        roles: tuple[str, ...] = (),
        email: str | None = None,
        locale: str | None = None,
    ) -> Person:
        n = next(_counter)
        name = name or f"Member {n}"
        email = email or f"{name.split()[0].lower()}.{n}@example.test"
        if account_queries.find_user(email) is None:
            accounts.create_user(email, name, PASSWORD, locale=locale)
        accounts.enrol_member(system_actor(org), email=email, roles=roles)
        user = account_queries.find_user(email)
        assert user is not None
        actor = account_queries.actor_for(org.slug, user.id, user.locale)
        assert actor is not None
        return Person(actor, email, name)

    return make


@dataclass(frozen=True)
class Tenant:
    org: Organization
    admin: Person


@pytest.fixture
def acme(make_org, make_member) -> Tenant:
    org = make_org("acme-test", "Acme Test")
    return Tenant(org, make_member(org, "Alice Admin", roles=(Role.ADMIN,)))


@pytest.fixture
def globex(make_org, make_member) -> Tenant:
    """The second organization every test suite keeps around, which must stay invisible."""
    org = make_org("globex-test", "Globex Test")
    return Tenant(org, make_member(org, "Gus Globex", roles=(Role.ADMIN,)))


@pytest.fixture
def client(app):
    return app.test_client()


def csrf_token_from(html: str) -> str:
    import re

    match = re.search(r'name="csrf-token" content="([^"]+)"', html) or re.search(
        r'name="csrf_token" type="hidden" value="([^"]+)"', html
    )
    assert match, "no CSRF token on the page"
    return match.group(1)


def post_login(client: FlaskClient, email: str, password: str, **extra: str):
    """Post the sign-in form as a browser does (with the page's CSRF token)."""
    token = csrf_token_from(client.get("/login").get_data(as_text=True))
    return client.post(
        "/login", data={"email": email, "password": password, "csrf_token": token, **extra}
    )


def browser_for(app: Flask, email: str, password: str = PASSWORD) -> tuple[FlaskClient, str]:
    """A browser of its own, signed in through the real form as ``email``; returns it
    with a CSRF token for its posts."""
    browser = app.test_client()
    token = csrf_token_from(browser.get("/login").get_data(as_text=True))
    response = browser.post(
        "/login", data={"email": email, "password": password, "csrf_token": token}
    )
    assert response.status_code == 302, response.get_data(as_text=True)
    # Signing in clears the session, and the CSRF secret with it: take a new token.
    page = browser.get("/orgs", follow_redirects=True).get_data(as_text=True)
    return browser, csrf_token_from(page)


def locale_of(email: str) -> str | None:
    """The language the account with ``email`` chose, as stored."""
    user = account_queries.find_user(email)
    assert user is not None
    return user.locale


def actor_of(org_slug: str, email: str) -> Actor:
    """The account with ``email`` acting in the organization at ``org_slug``."""
    user = account_queries.find_user(email)
    assert user is not None
    actor = account_queries.actor_for(org_slug, user.id, None)
    assert actor is not None
    return actor


def demo_browser(app: Flask, name: str) -> tuple[FlaskClient, str]:
    """A browser signed in as a person of the demo organization, by first name."""
    return browser_for(app, f"{name}@acme.example", DEMO_PASSWORD)


@pytest.fixture
def people(app, globex) -> Callable[[str], Actor]:
    """The demo organization, whose chart every flow can route: Siti and Jason (Sales
    Executives) report to Nurul (Sales Manager), who reports to Zainal (Sales Director,
    head of Sales); Hannah (HR) reports to Grace (Office Manager, admin), who reports to
    Aisha (CEO, admin, head of the Executive Office); Daniel (CFO) and Mei Ling (Finance
    Clerk) are admins too; Ravi is the auditor. Under the expense claim's exclusive
    approval a Sales claim is reviewed by Nurul, approved by Zainal, and committed and
    paid by two different admins. Globex is there too, and must stay invisible."""
    return demo_people()


def demo_people() -> Callable[[str], Actor]:
    """Seed the demo organization and answer its people by first name."""
    assert seed_demo() is True

    def person(name: str) -> Actor:
        user = account_queries.find_user(f"{name}@acme.example")
        assert user is not None
        actor = account_queries.actor_for("acme", user.id, None)
        assert actor is not None
        return actor

    return person


@pytest.fixture
def login(client) -> Callable[[Person], str]:
    """Sign ``person`` in through the real form; returns a CSRF token for later posts."""

    def sign_in(person: Person) -> str:
        page = client.get("/login")
        token = csrf_token_from(page.get_data(as_text=True))
        response = client.post(
            "/login", data={"email": person.email, "password": person.password, "csrf_token": token}
        )
        assert response.status_code == 302, response.get_data(as_text=True)
        return csrf_token_from(client.get("/orgs", follow_redirects=True).get_data(as_text=True))

    return sign_in


def sign_in(app: Flask, person: Person) -> tuple[FlaskClient, str]:
    """A second browser, signed in as ``person``; returns it and a CSRF token for posts."""
    return browser_for(app, person.email, person.password)


def retire_position(actor: Actor, position_id: int) -> None:
    """Retire a seat through the service, every other attribute kept as it is."""
    seat = orgchart.get_position(actor, position_id)
    orgchart.update_position(
        actor,
        seat.id,
        code=seat.code,
        title=seat.title,
        unit_id=seat.unit_id,
        reports_to_id=seat.reports_to_id,
        active=False,
    )


def open_invitation(org: Organization, email: str) -> tuple[int, str]:
    """The id and link token of the open invitation to ``email`` (as its mail carries)."""
    from sqlalchemy import select

    from portal.accounts.models import Invitation
    from portal.accounts.services.joining import invitation_link
    from portal.core.uow import unit_of_work

    with unit_of_work(org.id) as uow:
        row = uow.session.execute(
            select(Invitation.id, Invitation.selector).where(
                Invitation.email == email.lower(),
                Invitation.accepted_at.is_(None),
                Invitation.revoked_at.is_(None),
            )
        ).one()
    return row.id, invitation_link(org.id, row.selector)


def join_by_invitation(org: Organization, email: str, name: str, password: str = PASSWORD) -> Actor:
    """The invited person follows their link, makes their account and joins."""
    from portal.accounts.services.joining import accept_with_new_account

    _, token = open_invitation(org, email)
    joined = accept_with_new_account(token, name=name, password=password)
    actor = account_queries.actor_for(org.slug, joined.id, None)
    assert actor is not None
    return actor
