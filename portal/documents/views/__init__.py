"""Document pages: the requester's list and forms (``listing``), the detail page with
its actions and history (``detail``), and throwing a draft away (``discarding``).
One blueprint; each module adds its routes."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("documents", __name__, url_prefix="/o/<org>/documents")

# The modules register their routes on ``bp`` when imported.
from portal.documents.views import detail, discarding, handing_over, listing  # noqa: E402, F401
