"""A real SMTP server on loopback (aiosmtpd) for the tests, and what it received."""

from __future__ import annotations

import re
import socket
import threading
import time
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass(frozen=True)
class Received:
    mail_from: str
    recipients: tuple[str, ...]
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    def part(self, subtype: str) -> str:
        body = self.message.get_body(preferencelist=(subtype,))
        assert body is not None, f"no text/{subtype} part"
        return str(body.get_content())

    @property
    def text(self) -> str:
        return self.part("plain")

    @property
    def html(self) -> str:
        return self.part("html")

    def link(self, path_start: str) -> str:
        """The first link in the plain text whose path starts with ``path_start``."""
        found = re.search(rf"https?://[^\s/]+({re.escape(path_start)}[^\s]*)", self.text)
        assert found, f"no link to {path_start} in:\n{self.text}"
        return found.group(1)


class Mailbox:
    """Every message the server accepted, oldest first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._received: list[Received] = []
        # Replies to give instead of accepting: the next messages' (DATA), and an
        # address's for good (RCPT).
        self._refusals: list[str] = []
        self._refused_addresses: dict[str, str] = {}
        self.controller: Any = None  # the server that fills it

    def refuse_next(self, reply: str = "451 4.3.0 Try again later", count: int = 1) -> None:
        """Answer the next ``count`` messages with ``reply`` instead of accepting them."""
        with self._lock:
            self._refusals.extend([reply] * count)

    def refuse_address(self, address: str, reply: str = "550 5.1.1 No such user") -> None:
        """Refuse every message to ``address`` (at RCPT) with ``reply``."""
        with self._lock:
            self._refused_addresses[address.lower()] = reply

    async def handle_RCPT(  # noqa: N802 - aiosmtpd's hook name
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        with self._lock:
            refused = self._refused_addresses.get(address.lower())
        if refused is not None:
            return refused
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's hook name
        with self._lock:
            if self._refusals:
                return self._refusals.pop(0)
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        with self._lock:
            self._received.append(Received(envelope.mail_from, tuple(envelope.rcpt_tos), message))
        return "250 Message accepted"

    def clear(self) -> None:
        with self._lock:
            self._received.clear()
            self._refusals.clear()
            self._refused_addresses.clear()

    @property
    def received(self) -> list[Received]:
        with self._lock:
            return list(self._received)

    def to(self, address: str) -> list[Received]:
        return [r for r in self.received if address.lower() in (a.lower() for a in r.recipients)]

    def wait_for(self, address: str, *, count: int = 1, seconds: float = 20) -> list[Received]:
        """The mail to ``address`` once ``count`` have arrived (a worker sends it)."""
        deadline = time.monotonic() + seconds
        while len(self.to(address)) < count and time.monotonic() < deadline:
            time.sleep(0.1)
        found = self.to(address)
        assert len(found) >= count, f"{len(found)} mail(s) to {address} within {seconds} s"
        return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_smtp_server() -> tuple[Controller, Mailbox]:
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    mailbox.controller = controller
    return controller, mailbox
