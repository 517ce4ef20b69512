"""Accounts' RQ jobs: thin, taking plain values, each one unit of work."""

from __future__ import annotations

from portal.accounts.services.passwords import issue_password_reset


def send_password_reset(email: str) -> None:
    """Look the address up and, if it has an account, mail it a reset link. Run on a
    worker so the page that asked answers in the same time whatever the answer."""
    issue_password_reset(email)
