"""Links sent by mail carry a selector signed with the secret key.

The database keeps only the selector (and whether it was used, and until when it is
good), never the link: someone who can read the tables still cannot forge one, and a
link whose selector was replaced (a resend) or spent is dead. Each purpose signs with a
salt of its own, so a reset link is never taken for an invitation.
"""

from __future__ import annotations

from typing import Any

from itsdangerous import BadData, URLSafeSerializer


class LinkSigner:
    def __init__(self) -> None:
        self._secret: str | None = None

    def configure(self, secret: str) -> None:
        self._secret = secret

    def _serializer(self, purpose: str) -> URLSafeSerializer:
        if self._secret is None:
            raise RuntimeError("links are not configured; call create_app() first")
        return URLSafeSerializer(self._secret, salt=f"countersign.link.{purpose}")

    def sign(self, purpose: str, payload: dict[str, Any]) -> str:
        token: str = self._serializer(purpose).dumps(payload)
        return token

    def read(self, purpose: str, token: str) -> dict[str, Any] | None:
        """The payload of a link we signed for ``purpose``; None for anything else."""
        try:
            payload = self._serializer(purpose).loads(token)
        except (BadData, UnicodeError, ValueError):
            return None
        return payload if isinstance(payload, dict) else None

    def sign_selector(self, purpose: str, owner: int, selector: str) -> str:
        """A link naming a selector and whose it is (an organization, an account)."""
        return self.sign(purpose, {"o": owner, "s": selector})

    def read_selector(self, purpose: str, token: str) -> tuple[int, str] | None:
        """(owner, selector) of a link ``sign_selector`` made for ``purpose``, or None."""
        payload = self.read(purpose, token) or {}
        owner, selector = payload.get("o"), payload.get("s")
        if isinstance(owner, bool) or not isinstance(owner, int) or not isinstance(selector, str):
            return None
        return owner, selector


link_signer = LinkSigner()
