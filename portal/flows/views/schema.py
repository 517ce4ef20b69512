"""The flow graph's JSON Schema, served for anyone writing a flow file by hand."""

from __future__ import annotations

from importlib import resources

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

bp = Blueprint("schema", __name__, url_prefix="/schema")

GRAPH_SCHEMA = resources.files("portal.domain") / "graph.schema.json"


@bp.get("/flow-graph.json")
def graph_schema() -> ResponseReturnValue:
    return Response(GRAPH_SCHEMA.read_text(encoding="utf-8"), mimetype="application/schema+json")
