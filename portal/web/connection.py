"""One pooled database connection per web request (``db.connection_scope``).

A page inside an organization runs several units of work — the signed-in user with
their memberships, the page's own reads, the nav's badges — each its own transaction.
Taking the connection once per request spares the pool checkout and its liveness ping
for every one after the first. Opened before the URL is read (the tenancy hook loads
the user), closed when the request is torn down, error or not.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g

from portal.core.db import db


def init_request_connection(app: Flask) -> None:
    @app.url_value_preprocessor
    def _open(_endpoint: str | None, _values: dict[str, Any] | None) -> None:
        if "db_scope" not in g:
            scope = db.connection_scope()
            scope.__enter__()
            g.db_scope = scope

    @app.teardown_request
    def _close(_error: BaseException | None) -> None:
        scope = g.pop("db_scope", None)
        if scope is not None:
            scope.__exit__(None, None, None)
