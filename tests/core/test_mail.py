"""Mail leaves through the outbox: to a real SMTP server, or as .eml files without one;
retried with backoff while the server is away, a dead letter after the last attempt."""

from __future__ import annotations

from email import message_from_bytes, policy

from sqlalchemy import select

from portal.accounts import services
from portal.config import Settings
from portal.core import outbox
from portal.core.clock import clock
from portal.core.mail import DirectoryTransport, Mail, SmtpTransport, build_message, transport_for
from portal.core.outbox import OutboxEvent
from portal.core.uow import unit_of_work
from tests.conftest import deliver_mail
from tests.mailbox import free_port


def _mail(message_id: str = "<outbox.7.1@countersign.test>") -> Mail:
    return Mail(
        to="nina@example.test",
        to_name="Nina Ng",
        subject="Hello",
        text="Plain words\n",
        html="<p>Plain words</p>\n",
        message_id=message_id,
        locale="zh",
    )


def test_a_message_has_both_parts_and_says_what_it_is():
    message = build_message(_mail(), "Countersign <no-reply@countersign.test>")
    assert message["To"] == "Nina Ng <nina@example.test>"
    assert message["Message-ID"] == "<outbox.7.1@countersign.test>"
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["Content-Language"] == "zh"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]


def test_without_an_smtp_host_mail_is_written_as_eml_files_once_per_message(tmp_path):
    transport = transport_for(Settings(instance_dir=tmp_path))
    assert isinstance(transport, DirectoryTransport)
    assert isinstance(transport_for(Settings(smtp_host="smtp.example.com")), SmtpTransport)

    message = build_message(_mail(), "Countersign <no-reply@countersign.test>")
    transport.send(message)
    transport.send(message)  # a retry writes the same file again

    [written] = (tmp_path / "mail").iterdir()
    assert written.name == "outbox.7.1_countersign.test.eml"
    read = message_from_bytes(written.read_bytes(), policy=policy.default)
    assert read["Subject"] == "Hello" and read["To"] == "Nina Ng <nina@example.test>"


def test_smtp_delivery_reaches_the_server_with_the_envelope_and_the_message(settings, mailbox):
    SmtpTransport(settings).send(build_message(_mail(), settings.mail_sender))
    [received] = mailbox.received
    assert received.recipients == ("nina@example.test",)
    assert received.mail_from == "no-reply@countersign.test"
    assert received.text.strip() == "Plain words"


def test_mail_that_cannot_be_sent_is_retried_and_then_dead_for_an_admin_to_see(
    app, acme, mailbox, monkeypatch
):
    services.invite_member(acme.admin.actor, email="far@example.test", name="Far Away")
    # The SMTP server goes away: the portal's transport now reaches a port nobody answers.
    closed = free_port()
    real_send = SmtpTransport.send

    def send_to_nobody(self: SmtpTransport, message) -> None:
        real_send(SmtpTransport(self.settings.with_(smtp_port=closed)), message)

    monkeypatch.setattr(SmtpTransport, "send", send_to_nobody)

    clock.freeze(clock.now())
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        assert deliver_mail(acme.org.id) == 0
        with unit_of_work(acme.org.id) as uow:
            event = uow.session.scalars(select(OutboxEvent)).one()
            assert event.attempts == attempt and "ConnectionRefusedError" in (
                event.last_error or ""
            )
            dead = event.dead_at is not None
        assert dead == (attempt == outbox.MAX_ATTEMPTS)
        clock.advance(outbox.LONGEST_WAIT)
    assert mailbox.received == []
    [row] = services.members_overview(acme.admin.actor).invitations
    assert row.undeliverable

    # A resend makes a new mail (and the server is back): it goes out.
    monkeypatch.undo()
    services.resend_invitation(acme.admin.actor, row.id)
    assert deliver_mail(acme.org.id) == 1
    assert [m.recipients for m in mailbox.received] == [("far@example.test",)]
    [after] = services.members_overview(acme.admin.actor).invitations
    assert not after.undeliverable
