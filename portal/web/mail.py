"""Mail written from templates in the reader's language, sent by the outbox.

``init_mail`` registers the outbox's ``mail.*`` handler. Features answer an event with a
``Letter`` (who, which template, what to say); ``create_app`` wires their composers in,
so this module knows none of them. The text and HTML parts come from
``templates/emails/<template>.txt`` and ``.html``, the subject from ``.subject.txt``;
links are made absolute on ``PORTAL_BASE_URL``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from flask_babel import force_locale
from sqlalchemy.orm import Session

from portal.core import outbox
from portal.core.mail import Letter, Mail, Transport, build_message
from portal.core.outbox import OutboxEvent

Composer = Callable[[Session, dict[str, Any]], Letter | None]


def _external(app: Flask, base_url: str) -> Callable[[str, dict[str, Any]], str]:
    parts = urlsplit(base_url)
    adapter = app.url_map.bind(parts.netloc, script_name=parts.path or "/", url_scheme=parts.scheme)

    def link(endpoint: str, values: dict[str, Any]) -> str:
        return adapter.build(endpoint, values, force_external=True)

    return link


def render_letter(app: Flask, letter: Letter, *, base_url: str, message_id: str) -> Mail:
    link = _external(app, base_url)
    links = {name: link(endpoint, values) for name, (endpoint, values) in letter.links.items()}
    context = {**letter.context, "links": links, "base_url": base_url}
    # Rendered straight from the environment: the pages' context processors read the
    # request, and a worker has none.
    env = app.jinja_env
    with app.app_context(), force_locale(letter.locale):
        subject = env.get_template(f"emails/{letter.template}.subject.txt").render(context)
        text = env.get_template(f"emails/{letter.template}.txt").render(context)
        html = env.get_template(f"emails/{letter.template}.html").render(context)
    return Mail(
        to=letter.to,
        to_name=letter.name,
        subject=" ".join(subject.split()),
        text=text,
        html=html,
        message_id=message_id,
        locale=letter.locale,
    )


def init_mail(
    app: Flask,
    *,
    composers: Mapping[str, Composer],
    transport: Transport,
    sender: str,
) -> None:
    """Deliver ``mail.*`` events; links are built on the settings' ``base_url`` as it is
    when the mail is sent (the demo serves on the port it was given)."""

    def deliver(session: Session, event: OutboxEvent) -> None:
        compose = composers.get(event.topic.removeprefix("mail."))
        if compose is None:
            raise LookupError(f"no mail for {event.topic}")
        letter = compose(session, event.payload)
        if letter is None:  # nothing to say any more (revoked, renewed, used)
            return
        base_url = app.extensions["portal.settings"].base_url
        host = urlsplit(base_url).hostname or "localhost"
        # The outbox row's own id: a retry after a lost answer is the same message.
        message_id = f"<outbox.{event.id}.{event.org_id or 0}@{host}>"
        mail = render_letter(app, letter, base_url=base_url, message_id=message_id)
        transport.send(build_message(mail, sender))

    outbox.register("mail.", deliver)
