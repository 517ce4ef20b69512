"""Signing in more than one browser at a time: each gets its own test client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.factories import PASSWORD, csrf_token_from


@dataclass(frozen=True)
class Browser:
    client: Any
    csrf_token: str


@pytest.fixture
def sign_in(app) -> Callable[..., Browser]:  # type: ignore[no-untyped-def]
    """A fresh browser signed in through the real form, with a CSRF token for its posts."""

    def open_browser(email: str, password: str = PASSWORD) -> Browser:
        client = app.test_client()
        token = csrf_token_from(client.get("/login").get_data(as_text=True))
        response = client.post(
            "/login", data={"email": email, "password": password, "csrf_token": token}
        )
        assert response.status_code == 302, response.get_data(as_text=True)
        # Signing in clears the session, and the CSRF secret with it: take a new token.
        page = client.get("/orgs", follow_redirects=True).get_data(as_text=True)
        return Browser(client, csrf_token_from(page))

    return open_browser
