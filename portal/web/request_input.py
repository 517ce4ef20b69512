"""The one layer every request's input passes before a view sees it.

Query strings and form posts are checked and normalised here (``domain.text_input``):
no control characters (line breaks only in the fields a view names as multi-line), NFC,
every value bounded. Ids in the path are ASCII digits within BIGINT, or the page does
not exist. JSON bodies are read by ``json_body`` and nothing else. The request id is
the server's own (a trusted proxy's, when it matches a strict pattern); it is stored
with decisions and answered in ``X-Request-Id``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from flask import Flask, Response, abort, current_app, g, request, request_started
from werkzeug.datastructures import ImmutableMultiDict, MultiDict
from werkzeug.routing import BaseConverter, ValidationError

from portal.core import logs
from portal.domain.errors import DomainError
from portal.domain.text_input import (
    MAX_FORM_VALUE,
    MAX_ID,
    MAX_NAME,
    MAX_QUERY_VALUE,
    clean_text,
    loads_strict,
)

# A path segment longer than this names nothing the portal has.
MAX_PATH_SEGMENT = 200
# What a proxy or a client may hand us as a request id; anything else is replaced.
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{7,63}")
_CONTROL_IN_PATH = re.compile(r"[\x00-\x1f\x7f-\x9f]")

F = TypeVar("F", bound=Callable[..., Any])


def multiline(*fields: str) -> Callable[[F], F]:
    """Marks the form fields of a view that may hold line breaks (a comment, a
    description); every other field is one line."""

    def mark(view: F) -> F:
        view.multiline_fields = frozenset(fields)  # type: ignore[attr-defined]
        return view

    return mark


class IdConverter(BaseConverter):
    """``<int:…>`` in a route: ASCII digits naming a storable id, else no such page.

    Werkzeug's own reads any Unicode digit ("١٢") and fails on 5,000 of them."""

    regex = r"[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 < number <= MAX_ID:
            raise ValidationError()
        return number

    def to_url(self, value: Any) -> str:
        return str(int(value))


def _cleaned(
    values: MultiDict[str, str], *, limit: int, multiline_fields: Iterable[str]
) -> ImmutableMultiDict[str, str]:
    allowed = frozenset(multiline_fields)
    cleaned: list[tuple[str, str]] = []
    for key, value in values.items(multi=True):
        name = clean_text(key, field=key[:MAX_NAME], limit=MAX_NAME)
        cleaned.append(
            (name, clean_text(value, field=name, multiline=name in allowed, limit=limit))
        )
    return ImmutableMultiDict(cleaned)


def _request_id() -> str:
    """The server's own id; behind trusted proxies, the proxy's when it is well formed
    (so one id follows a request through the logs). A client never chooses what the
    history records."""
    offered = request.headers.get("X-Request-Id", "")
    trusted = current_app.config.get("PORTAL_TRUST_REQUEST_ID", False)
    return offered if trusted and _REQUEST_ID.fullmatch(offered) else secrets.token_hex(16)


def current_request_id() -> str:
    """This request's id (the server's own, or a well-formed one from the proxy)."""
    rid: str = g.get("request_id") or _request_id()
    return rid


def json_body(*, max_bytes: int) -> Any:
    """The request's JSON, read by the one strict reader (no key twice, decimals exact,
    strings checked like every form value); ``bad_request`` for anything else."""
    if (request.content_length or 0) > max_bytes:
        raise DomainError("body_too_large", limit=max_bytes)
    raw = request.get_data(cache=False)
    if len(raw) > max_bytes:
        raise DomainError("body_too_large", limit=max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DomainError("bad_request") from None
    return loads_strict(text)


def init_request_input(app: Flask, *, trust_request_id: bool = False) -> None:
    """Install the id converter (before any route is added) and the input check; take
    a proxy's request id only when ``trust_request_id`` (trusted proxies configured)."""
    app.config["PORTAL_TRUST_REQUEST_ID"] = trust_request_id
    app.url_map.converters["int"] = IdConverter

    def _begin(_app: Flask, **_extra: Any) -> None:
        # Before anything else of the request (the user's load, the organization's
        # resolution), so that every line it logs carries its id.
        g.request_id = _request_id()
        logs.unbind()  # nothing of an earlier request on this thread
        logs.bind(request_id=g.request_id)

    request_started.connect(_begin, app, weak=False)

    @app.teardown_request
    def _end(_error: BaseException | None) -> None:
        logs.unbind()

    @app.before_request
    def _check_input() -> None:
        if _CONTROL_IN_PATH.search(request.path):
            abort(404)
        for value in (request.view_args or {}).values():
            if isinstance(value, str) and len(value) > MAX_PATH_SEGMENT:
                abort(404)
        view = app.view_functions.get(request.endpoint or "")
        request.args = _cleaned(request.args, limit=MAX_QUERY_VALUE, multiline_fields=())
        if request.method in {"POST", "PUT", "PATCH", "DELETE"}:
            request.form = _cleaned(
                request.form,
                limit=MAX_FORM_VALUE,
                multiline_fields=getattr(view, "multiline_fields", ()),
            )
        # ``values`` combines the two; let it be built again from the cleaned ones.
        request.__dict__.pop("values", None)

    @app.after_request
    def _answer_request_id(response: Response) -> Response:
        response.headers["X-Request-Id"] = current_request_id()
        return response
