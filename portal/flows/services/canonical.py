"""The one byte-exact form of a graph, and the digest a published version carries: what
lets anyone check a version was not altered."""

from __future__ import annotations

import hashlib
import json

from portal.domain import graph as graphs
from portal.domain.graph import Graph, GraphFormatError


def canonical_json(graph: Graph) -> str:
    """The one byte-exact form of a graph: what the digest covers."""
    return json.dumps(
        graphs.to_json(graph.normalised()),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def digest_of(graph: Graph) -> str:
    return hashlib.sha256(canonical_json(graph).encode("utf-8")).hexdigest()


def check_encodable(graph: Graph) -> None:
    """The loader refuses lone UTF-16 surrogates ("\\ud800"); a graph built in code could
    still carry one, and no page, export or digest could encode it."""
    try:
        canonical_json(graph).encode("utf-8")
    except UnicodeEncodeError:
        raise GraphFormatError("graph_not_utf8") from None
