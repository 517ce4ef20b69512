"""Signing in more than one browser at a time: each gets its own test client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.factories import PASSWORD, browser_for


@dataclass(frozen=True)
class Browser:
    client: Any
    csrf_token: str


@pytest.fixture
def sign_in(app) -> Callable[..., Browser]:
    """A fresh browser signed in through the real form, with a CSRF token for its posts."""

    def open_browser(email: str, password: str = PASSWORD) -> Browser:
        return Browser(*browser_for(app, email, password))

    return open_browser
