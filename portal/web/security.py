"""Response headers every page carries."""

from __future__ import annotations

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def trust_proxies(app: Flask, count: int) -> None:
    """Behind ``count`` proxies the client is the address the outermost one saw (and
    the scheme it was asked with): the sign-in throttle must count clients, not the
    proxy. Nothing is trusted from a request that came straight in."""
    if count:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=count, x_proto=count)  # type: ignore[method-assign]


def init_security_headers(app: Flask, *, production: bool) -> None:
    @app.after_request
    def _headers(response: Response) -> Response:
        h = response.headers
        h.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        h.setdefault("X-Content-Type-Options", "nosniff")
        h.setdefault("X-Frame-Options", "DENY")
        h.setdefault("Referrer-Policy", "same-origin")
        h.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        h.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        if production:
            h.setdefault("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
        if response.mimetype in {"text/html", "application/json"}:
            # Pages and JSON answers show tenant data; never let a shared cache keep them.
            h.setdefault("Cache-Control", "no-store")
            h.add("Vary", "Cookie")
        return response
