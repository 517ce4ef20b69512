"""The document tests run in the demo organization, whose chart every flow can route:
Siti and Jason (Sales Executives) report to Nurul (head of Sales); Hannah (HR)
reports to Grace (Office Manager, admin), who reports to Aisha (CEO, admin, head of
the Executive Office); Ravi is the auditor. Globex is there too, and must stay
invisible."""

from __future__ import annotations

import pytest

from portal.accounts import services as accounts
from portal.demo import seed_demo


@pytest.fixture
def people(app, globex):  # type: ignore[no-untyped-def]
    return demo_people()


def demo_people():  # type: ignore[no-untyped-def]
    """Seed acme and answer its people by first name (siti, nurul, grace, ...)."""
    assert seed_demo() is True

    def person(name: str):  # type: ignore[no-untyped-def]
        user = accounts.find_user(f"{name}@acme.example")
        assert user is not None
        return accounts.actor_for("acme", user.id, None)

    return person
