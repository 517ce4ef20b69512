"""One document's complete record as JSON: an outside tool, knowing only the hash
construction the record states (and the README repeats), re-verifies its chain with the
standard library alone; a value changed in the file no longer verifies; the export is
itself on record."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select

from portal.audit.models import AuditExport, ExportKind
from portal.core.uow import unit_of_work
from tests.audit.timelines import the_long_way, urls
from tests.factories import demo_browser


def outside_verifier(record: dict[str, Any]) -> int | None:
    """The README's verifier, as someone without this code base would write it: None
    when the chain holds, else the first sequence number that does not follow."""
    spec = record["hash_construction"]
    prev, seq = spec["genesis"], 0
    for seq, d in enumerate(record["decisions"], start=1):
        body = json.dumps({k: d[k] for k in spec["fields"]}, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()
        if d["seq"] != seq or d["prev_hash"] != prev or d["hash"] != digest:
            return seq
        prev = d["hash"]
    head = record["chain_head"]
    if (head["seq"], head["hash"]) != (seq, prev):
        return min(head["seq"], seq + 1)
    return None


def _exports(org_id: int) -> list[AuditExport]:
    with unit_of_work(org_id) as uow:
        rows = uow.session.scalars(select(AuditExport).where(AuditExport.org_id == org_id))
        return list(rows)


def test_an_outside_tool_re_verifies_the_exported_record(app, people, globex):
    doc = the_long_way(people)
    ravi, _ = demo_browser(app, "ravi")
    answer = ravi.get(urls(doc.reference)["record"])
    assert answer.status_code == 200
    assert answer.mimetype == "application/json"
    assert f'filename="{doc.reference}-record.json"' in answer.headers["Content-Disposition"]
    record = json.loads(answer.get_data(as_text=True))

    assert outside_verifier(record) is None
    assert record["verification"] == {
        "ok": True,
        "decisions": 6,
        "first_bad_seq": None,
        "checked_at": record["exported_at"],
    }
    assert [d["seq"] for d in record["decisions"]] == [1, 2, 3, 4, 5, 6]
    assert record["decisions"][1]["comment"] == "Attach the receipt, please."
    # Non-ASCII text is hashed escaped, whatever the file's own encoding of it.
    assert record["decisions"][4]["comment"] == "Receipt attached — 谢谢 ✓"
    # Money as strings, times in ISO 8601 with their offset.
    assert record["document"]["amount"] == "480.0000"
    assert record["decisions"][0]["amount"] == "480.0000"
    assert record["decisions"][0]["decided_at"].endswith("+00:00")
    assert record["exported_at"].endswith("+00:00")
    assert record["document"]["reference"] == doc.reference
    assert record["organization"]["slug"] == "acme"


def test_a_value_changed_in_the_file_fails_the_outside_check(app, people, globex):
    doc = the_long_way(people)
    ravi, _ = demo_browser(app, "ravi")
    text = ravi.get(urls(doc.reference)["record"]).get_data(as_text=True)
    assert outside_verifier(json.loads(text)) is None  # as exported, it holds

    for change in (
        lambda r: r["decisions"][1].update(comment="Looks wrong"),
        lambda r: r["decisions"][3].update(amount="4800.0000"),
        lambda r: r["decisions"][4]["eligible"].append(99),
        lambda r: r["decisions"][5].update(decided_at="2026-01-01T00:00:00.000000+00:00"),
        lambda r: r["decisions"].pop(),  # the last decision dropped: the head says so
        lambda r: r["decisions"].insert(2, r["decisions"].pop(3)),  # two swapped
    ):
        record = json.loads(text)
        change(record)
        assert outside_verifier(record) is not None
    comment_changed = json.loads(text)
    comment_changed["decisions"][1]["comment"] = "Looks wrong"
    assert outside_verifier(comment_changed) == 2


def test_every_export_of_a_record_is_on_record(app, people, globex):
    doc = the_long_way(people)
    ravi_actor = people("ravi")
    assert _exports(ravi_actor.org_id) == []
    ravi, _ = demo_browser(app, "ravi")
    answer = ravi.get(urls(doc.reference)["record"])
    assert answer.status_code == 200

    (row,) = _exports(ravi_actor.org_id)
    assert (row.kind, row.reference, row.rows, row.member_id) == (
        ExportKind.DOCUMENT,
        doc.reference,
        6,
        ravi_actor.member_id,
    )
    assert row.request_id == answer.headers["X-Request-Id"]
    # Nothing of it in the other organization; a refused export leaves no record.
    assert _exports(globex.org.id) == []
    siti, _ = demo_browser(app, "siti")
    assert siti.get(urls(doc.reference)["record"]).status_code == 404
    assert ravi.get(urls("EXP-2026-99999")["record"]).status_code == 404
    # A HEAD learns the type and takes nothing: nothing recorded.
    assert ravi.head(urls(doc.reference)["record"]).status_code == 200
    assert len(_exports(ravi_actor.org_id)) == 1
