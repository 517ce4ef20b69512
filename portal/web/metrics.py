"""``/metrics`` for Prometheus, and the timing of every request it reports.

The endpoint is off unless ``PORTAL_METRICS_TOKEN`` is set, and then answers only a
scraper that sends it (``Authorization: Bearer …``): anyone else gets the 404 an
unknown page gets, so the public learns nothing, not even that it exists.
"""

from __future__ import annotations

import hmac
import time

from flask import Flask, Response, abort, current_app, g, request

from portal.core.metrics import exposition, observe_request


def init_metrics(app: Flask) -> None:
    @app.before_request
    def _start_clock() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def _observe(response: Response) -> Response:
        started = g.pop("metrics_started", None)
        if started is not None and request.endpoint != "metrics":
            # The rule (``/o/<org>/documents/<reference>``), never the path: one series
            # per page, whatever the organization or document.
            route = request.url_rule.rule if request.url_rule is not None else "unmatched"
            observe_request(
                route, request.method, response.status_code, time.perf_counter() - started
            )
        return response

    @app.get("/metrics", endpoint="metrics")
    def _metrics() -> Response:
        token = current_app.extensions["portal.settings"].metrics_token
        offered = request.headers.get("Authorization", "")
        expected = f"Bearer {token}"
        if not token or not hmac.compare_digest(offered.encode(), expected.encode()):
            abort(404)
        answer = Response(exposition(), mimetype="text/plain; version=0.0.4")
        answer.headers["Cache-Control"] = "no-store"
        return answer
