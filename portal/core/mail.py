"""Mail leaving the portal: one message (plain text and HTML) and the way it goes out.

With ``PORTAL_SMTP_HOST`` set, messages go to that server (plain, STARTTLS or TLS, with
a login when one is configured); without it (the demo, development) each message is
written as an ``.eml`` file under ``instance/mail/``. Sending is called by the outbox's
``mail.*`` handler, so a failure is retried with backoff and a message that cannot be
sent becomes a dead letter; the ``Message-ID`` is the outbox row's, so a retry after a
lost answer is recognisably the same message.
"""

from __future__ import annotations

import re
import smtplib
import ssl
from dataclasses import dataclass, field
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


def build_message(mail: Mail, sender: str) -> EmailMessage:
    message = EmailMessage()
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
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._context: ssl.SSLContext | None = None

    def _tls(self) -> ssl.SSLContext:
        # Built once, on the first encrypted send: loading the trust store takes tens of
        # milliseconds, too long to repeat for every message (and useless without TLS).
        if self._context is None:
            self._context = ssl.create_default_context()
        return self._context

    def send(self, message: EmailMessage) -> None:
        s = self.settings
        server: smtplib.SMTP
        if s.smtp_security == "tls":
            server = smtplib.SMTP_SSL(
                s.smtp_host, s.smtp_port, timeout=s.smtp_timeout, context=self._tls()
            )
        else:
            server = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout)
        with server:
            if s.smtp_security == "starttls":
                server.starttls(context=self._tls())
            if s.smtp_user:
                server.login(s.smtp_user, s.smtp_password)
            server.send_message(message)


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
