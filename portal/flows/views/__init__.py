"""Flow pages: the flow admin pages and the editor's page (``pages``), the org chart's
"Who would approve?" page (``routing``, under ``/o/<org>/admin/chart/routing``) and the
graph's JSON Schema (``schema``). One blueprint per module; ``app.py`` registers them."""

from __future__ import annotations

from portal.flows.views.pages import bp
from portal.flows.views.routing import bp as routing_bp
from portal.flows.views.schema import bp as schema_bp

__all__ = ["bp", "routing_bp", "schema_bp"]
