"""The per-document hash chain: every decision records its predecessor's hash and the
SHA-256 of its own canonical record, so changing any recorded value, or the order,
breaks every hash after it (DESIGN §4 "Decision").

Pure: the documents feature stores the links and the chain's head on the document row;
this says what a link is made of and whether a stored chain still holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

GENESIS_HASH = "0" * 64

# Everything a decision records, as hashed (the hash itself excepted), in the order of
# the record the chain covers.
CHAINED_FIELDS = (
    "document_id",
    "seq",
    "flow_version_id",
    "from_state",
    "to_state",
    "transition",
    "gate",
    "actor_id",
    "authority_member_id",
    "via",
    "delegation_id",
    "amount",
    "currency",
    "winning_floor",
    "eligible",
    "resolution",
    "comment",
    "request_id",
    "decided_at",
    "prev_hash",
)


def money_text(amount: Decimal) -> str:
    """One spelling per amount, at the precision money is stored with (NUMERIC(19,4))."""
    return format(Decimal(amount).quantize(Decimal("0.0001")), "f")


def chained_record(values: Mapping[str, Any]) -> dict[str, Any]:
    """A decision's values as the chain hashes them: amounts in one spelling, the time
    to the microsecond."""
    record = {name: values[name] for name in CHAINED_FIELDS}
    record["amount"] = money_text(values["amount"])
    floor = values["winning_floor"]
    record["winning_floor"] = money_text(floor) if floor is not None else None
    record["eligible"] = list(values["eligible"])
    record["decided_at"] = values["decided_at"].isoformat(timespec="microseconds")
    return record


def decision_hash(prev_hash: str, record: Mapping[str, Any]) -> str:
    """SHA-256 over the previous hash and the decision's canonical JSON."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


def link_hash(values: Mapping[str, Any]) -> str:
    """The hash a decision with these values (``prev_hash`` among them) must carry."""
    return decision_hash(values["prev_hash"], chained_record(values))


@dataclass(frozen=True)
class ChainCheck:
    ok: bool
    decisions: int
    # The first decision whose hash does not follow from its record and predecessor.
    broken_at: int | None = None


def verify_chain(
    decisions: Sequence[Mapping[str, Any]], head_seq: int, head_hash: str
) -> ChainCheck:
    """Recompute the chain from the stored decisions (in ``seq`` order, each with its
    ``hash``) and check it ends at the head the document row records."""
    prev = GENESIS_HASH
    for expected_seq, row in enumerate(decisions, start=1):
        if row["seq"] != expected_seq or row["prev_hash"] != prev:
            return ChainCheck(False, len(decisions), row["seq"])
        if link_hash(row) != row["hash"]:
            return ChainCheck(False, len(decisions), row["seq"])
        prev = row["hash"]
    # The document row carries the chain's head: a missing last decision shows here.
    if (head_seq, head_hash) != (len(decisions), prev):
        return ChainCheck(False, len(decisions), min(head_seq, len(decisions) + 1))
    return ChainCheck(True, len(decisions))
