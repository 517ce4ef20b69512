"""Factories as fixtures: organizations and members built through the real services."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient

from portal.accounts import services as accounts
from portal.accounts.models import Organization
from portal.domain.actor import Actor, Role, SystemActor
from portal.orgchart import services as orgchart

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


def system_actor(org: Organization) -> Actor:
    return SystemActor(org_id=org.id, org_slug=org.slug)  # type: ignore[return-value]


@pytest.fixture
def make_org(app) -> Callable[..., Organization]:  # type: ignore[no-untyped-def]
    def make(slug: str | None = None, name: str | None = None, **kw: str) -> Organization:
        n = next(_counter)
        return accounts.create_organization(slug or f"org-{n}", name or f"Organization {n}", **kw)

    return make


@pytest.fixture
def make_member(app) -> Callable[..., Person]:  # type: ignore[no-untyped-def]
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
        if accounts.find_user(email) is None:
            accounts.create_user(email, name, PASSWORD, locale=locale)
        accounts.create_member(system_actor(org), email=email, name=name, roles=roles)
        user = accounts.find_user(email)
        assert user is not None
        actor = accounts.actor_for(org.slug, user.id, user.locale)
        assert actor is not None
        return Person(actor, email, name)

    return make


@dataclass(frozen=True)
class Tenant:
    org: Organization
    admin: Person


@pytest.fixture
def acme(make_org, make_member) -> Tenant:  # type: ignore[no-untyped-def]
    org = make_org("acme-test", "Acme Test")
    return Tenant(org, make_member(org, "Alice Admin", roles=(Role.ADMIN,)))


@pytest.fixture
def globex(make_org, make_member) -> Tenant:  # type: ignore[no-untyped-def]
    """The second organization every test suite keeps around, which must stay invisible."""
    org = make_org("globex-test", "Globex Test")
    return Tenant(org, make_member(org, "Gus Globex", roles=(Role.ADMIN,)))


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


def csrf_token_from(html: str) -> str:
    import re

    match = re.search(r'name="csrf-token" content="([^"]+)"', html) or re.search(
        r'name="csrf_token" type="hidden" value="([^"]+)"', html
    )
    assert match, "no CSRF token on the page"
    return match.group(1)


@pytest.fixture
def login(client) -> Callable[[Person], str]:  # type: ignore[no-untyped-def]
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
    browser = app.test_client()
    token = csrf_token_from(browser.get("/login").get_data(as_text=True))
    response = browser.post(
        "/login", data={"email": person.email, "password": person.password, "csrf_token": token}
    )
    assert response.status_code == 302
    return browser, csrf_token_from(
        browser.get("/orgs", follow_redirects=True).get_data(as_text=True)
    )


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
