"""Mail leaving the portal: one message (plain text and HTML) and the way it goes out.

With ``PORTAL_SMTP_HOST`` set, messages go to that server (plain, STARTTLS or TLS, with
a login when one is configured); without it (the demo, development) each message is
written as an ``.eml`` file under ``instance/mail/``. Sending is called by the outbox's
``mail.*`` handler, so a failure is retried with backoff and a message that cannot be
sent becomes a dead letter; the ``Message-ID`` is the outbox row's, so a retry after a
lost answer is recognisably the same message.
"""

from __future__ import annotations

import os
import re
import smtplib
import ssl
import threading
import time
from dataclasses import dataclass, field
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Any, Protocol

from portal.config import Settings
from portal.core.clock import clock


@dataclass(frozen=True)
class Letter:
    """What a feature wants said to whom: the template (``emails/<template>.txt`` and
    ``.html``, subject in ``.subject.txt``) and its context, in the reader's language.
    Links are named as (endpoint, values) and made absolute on the portal's address."""

    to: str
    name: str
    locale: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    links: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Mail:
    to: str
    to_name: str
    subject: str
    text: str
    html: str
    # "<outbox-42.7@countersign.example.com>": stable for the outbox row it comes from.
    message_id: str
    locale: str = "en"


class _HeaderClasses(HeaderRegistry):
    """The standard header registry, but each header's class is made once: the stock
    one makes a new class for every header set, a third of the time a message takes."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = super().__getitem__(name)
        return made


# The default policy (the same message, byte for byte), with the registry above.
_POLICY = policy.default.clone(header_factory=_HeaderClasses())


def build_message(mail: Mail, sender: str) -> EmailMessage:
    message = EmailMessage(policy=_POLICY)
    message["From"] = sender
    message["To"] = formataddr((mail.to_name, mail.to))
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(clock.now())
    message["Message-ID"] = mail.message_id
    # Tell mail servers and out-of-office robots this is automatic: no auto-replies.
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(mail.text)
    message.add_alternative(mail.html, subtype="html")
    # After the content: setting it clears every Content-* header.
    message["Content-Language"] = mail.locale
    return message


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


class SmtpTransport:
    """Sends over one connection kept open between messages (a batch of mail costs one
    connect and greeting, not one each), opened again when it was idle a while, belongs
    to another process (a forked worker), or turns out closed by the server."""

    # Servers drop idle clients after a minute or more; a connection idle this long is
    # closed and opened anew rather than tried.
    IDLE = 10.0

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._context: ssl.SSLContext | None = None
        self._lock = threading.Lock()
        self._server: smtplib.SMTP | None = None
        self._pid = 0
        self._used_at = 0.0

    def _tls(self) -> ssl.SSLContext:
        # Built once, on the first encrypted send: loading the trust store takes tens of
        # milliseconds, too long to repeat for every message (and useless without TLS).
        if self._context is None:
            self._context = ssl.create_default_context()
        return self._context

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        server: smtplib.SMTP
        if s.smtp_security == "tls":
            server = smtplib.SMTP_SSL(
                s.smtp_host, s.smtp_port, timeout=s.smtp_timeout, context=self._tls()
            )
        else:
            server = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout)
        try:
            if s.smtp_security == "starttls":
                server.starttls(context=self._tls())
            if s.smtp_user:
                server.login(s.smtp_user, s.smtp_password)
        except BaseException:
            server.close()
            raise
        return server

    def _kept(self) -> smtplib.SMTP | None:
        """The open connection, if it may still be used."""
        server, self._server = self._server, None
        if server is None:
            return None
        if self._pid != os.getpid():  # the parent's socket: leave it to the parent
            return None
        if time.monotonic() - self._used_at > self.IDLE:
            self._quit(server)
            return None
        return server

    def _quit(self, server: smtplib.SMTP) -> None:
        try:
            server.quit()
        except (smtplib.SMTPException, OSError):
            server.close()

    def send(self, message: EmailMessage) -> None:
        with self._lock:
            server = self._kept()
            if server is not None:
                try:
                    server.send_message(message)
                except (smtplib.SMTPServerDisconnected, ConnectionError):
                    server.close()  # closed by the server meanwhile: once more, anew
                    server = None
                except BaseException:
                    self._quit(server)
                    raise
            if server is None:
                server = self._connect()
                try:
                    server.send_message(message)
                except BaseException:
                    self._quit(server)
                    raise
            self._server, self._pid, self._used_at = server, os.getpid(), time.monotonic()

    def close(self) -> None:
        with self._lock:
            server = self._kept()
            if server is not None:
                self._quit(server)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class DirectoryTransport:
    """Writes each message to ``directory`` as ``<message id>.eml``: a retry writes the
    same file again, it does not add a second."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def send(self, message: EmailMessage) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        name = _UNSAFE.sub("_", str(message["Message-ID"]).strip("<>"))
        (self.directory / f"{name}.eml").write_bytes(bytes(message))


def transport_for(settings: Settings) -> Transport:
    if settings.smtp_host:
        return SmtpTransport(settings)
    return DirectoryTransport(settings.mail_directory)
