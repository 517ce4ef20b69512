"""The flow graph's JSON codec: what exports, drafts, versions and the editor exchange.

``loads``/``from_json`` read a document and check its shape only, naming the path of
the first problem (``GraphFormatError``); ``dumps``/``to_json`` write it back so that
``from_json(to_json(g)) == g``; ``canonical_json`` is the one byte-exact form, and
``digest_of`` its SHA-256, the fingerprint a published version carries.
"""

from __future__ import annotations

from portal.domain.graph_json.loader import (
    MAX_DOCUMENT_BYTES,
    GraphFormatError,
    from_json,
    loads,
)
from portal.domain.graph_json.writer import FORMAT, canonical_json, digest_of, dumps, to_json

__all__ = [
    "FORMAT",
    "MAX_DOCUMENT_BYTES",
    "GraphFormatError",
    "canonical_json",
    "digest_of",
    "dumps",
    "from_json",
    "loads",
    "to_json",
]
