"""Exporting the audit search: every document the filter matches, in the search's
order, as CSV or JSON — streamed, so a hundred thousand rows never sit in memory.

Two units of work. The first counts the rows, refuses an export beyond the configured
maximum (nothing recorded) and records the export; it commits before the first row is
sent, so an export that breaks off half-way is on record all the same. The second is
open while the rows stream: one statement through a server-side cursor, a batch at a
time, each batch written with ``csv.writer`` (or ``json.dumps``) into one chunk.
The columns are documented in the README ("Audit exports").
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from portal.audit.models import ExportKind
from portal.audit.queries.search import Labeller, member_names_in, search_clause_in
from portal.audit.services.recording import record_export_in
from portal.core.clock import clock
from portal.core.uow import unit_of_work_for
from portal.documents.queries.audit_search import audit_batches_in, count_audit_in
from portal.domain.actor import Actor, require_audit_reader
from portal.domain.audit_query import AuditQuery
from portal.domain.errors import DomainError, NotFound
from portal.domain.money import minor_digits
from portal.domain.spreadsheet import safe_cell

DEFAULT_MAX_ROWS = 100_000
FORMATS = {"csv": ExportKind.SEARCH_CSV, "json": ExportKind.SEARCH_JSON}
MIMETYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json"}

# The columns, in order: the CSV's header and the JSON objects' keys.
COLUMNS = (
    "reference",
    "kind",
    "kind_name",
    "flow_version",
    "title",
    "requester",
    "requester_member_id",
    "amount",
    "currency",
    "state",
    "state_name",
    "created_at",
    "last_decision_at",
    "discarded_at",
)


# The columns people typed or named: reference, kind_name, title, requester, state_name.
_FREE_TEXT = tuple(
    COLUMNS.index(c) for c in ("reference", "kind_name", "title", "requester", "state_name")
)


@dataclass(frozen=True)
class SearchExport:
    rows: int
    filename: str
    mimetype: str
    # The file, chunk by chunk (a batch of rows each); iterate it to the end, or close it.
    chunks: Iterator[str]


_QUANTA: dict[str, Decimal] = {}


def amount_text(amount: Decimal, currency: str) -> str:
    """The amount as stored, written plainly at its currency's decimals ("480.00",
    "1200" yen, "1.250" dinars); an amount with more places keeps them all — never
    rounded."""
    quantum = _QUANTA.get(currency)
    if quantum is None:
        quantum = _QUANTA[currency] = Decimal(1).scaleb(-minor_digits(currency))
    exact = amount.quantize(quantum)
    if exact != amount:
        return format(amount.normalize(), "f")
    return format(exact, "f")


def moment_text(moment: datetime | None) -> str | None:
    """ISO 8601 with its offset, in UTC: ``2026-12-05T02:00:00+00:00``."""
    if moment is None:
        return None
    if moment.tzinfo is not UTC:  # PostgreSQL's are UTC already; SQLite's naive ones too
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.isoformat(timespec="seconds")


class _Rows:
    """A batch of search rows as the export's values (names and labels looked up once
    per member and per pinned version)."""

    def __init__(self, labels: Labeller, names: dict[int, str]) -> None:
        self.labels, self.names = labels, names
        self._kinds: dict[tuple[str, int], str] = {}
        self._states: dict[tuple[str, int, str], str] = {}

    def values(self, row: Sequence[Any]) -> list[Any]:
        (_id, reference, kind, version, title, requester_id, amount, currency, state) = row[:9]
        created, decided, discarded = row[9], row[10], row[11]
        key = (kind, version)
        kind_name = self._kinds.get(key)
        if kind_name is None:
            kind_name = self._kinds[key] = self.labels.kind(kind, version)
        state_key = (kind, version, state)
        state_name = self._states.get(state_key)
        if state_name is None:
            state_name = self._states[state_key] = self.labels.state(kind, version, state)[0]
        return [
            reference,
            kind,
            kind_name,
            version,
            title,
            self.names.get(requester_id, ""),
            requester_id,
            amount_text(amount, currency),
            currency,
            state,
            state_name,
            moment_text(created),
            moment_text(decided),
            moment_text(discarded),
        ]


class _Csv:
    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\r\n")

    def _take(self) -> str:
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text

    def head(self, _meta: dict[str, Any]) -> str:
        # The byte-order mark tells spreadsheet programs the file is UTF-8 (names in
        # Chinese or Malay stay readable); the header row names the columns.
        self.writer.writerow(COLUMNS)
        return "\ufeff" + self._take()

    def batch(self, rows: list[list[Any]]) -> str:
        write = self.writer.writerow
        for values in rows:
            # Only free text can start like a formula: keys, numbers and times cannot.
            for i in _FREE_TEXT:
                values[i] = safe_cell(values[i])
            write(values)
        return self._take()

    def tail(self) -> str:
        return ""


class _Json:
    def __init__(self) -> None:
        self.first = True

    def head(self, meta: dict[str, Any]) -> str:
        opening = json.dumps(meta, ensure_ascii=False)
        return opening[:-1] + ', "documents": ['

    def batch(self, rows: list[list[Any]]) -> str:
        parts = [
            json.dumps(dict(zip(COLUMNS, values, strict=True)), ensure_ascii=False)
            for values in rows
        ]
        if not parts:
            return ""
        text = ("\n" if self.first else ",\n") + ",\n".join(parts)
        self.first = False
        return text

    def tail(self) -> str:
        return "\n]}\n"


def _stream(
    actor: Actor, query: AuditQuery, encoder: _Csv | _Json, meta: dict[str, Any], limit: int
) -> Iterator[str]:
    """The file: read in its own unit of work, held open while the rows stream."""
    with unit_of_work_for(actor) as uow:
        s = uow.session
        sql = search_clause_in(s, actor, query)
        rows = _Rows(Labeller(s, actor.org_id, actor.locale), member_names_in(s))
        yield encoder.head(meta)
        values: Callable[[Sequence[Any]], list[Any]] = rows.values
        # Never more than the maximum, whatever was added since the count.
        for batch in audit_batches_in(s, sql, limit=limit):
            yield encoder.batch([values(row) for row in batch])
        yield encoder.tail()


def start_search_export(
    actor: Actor,
    query: AuditQuery,
    fmt: str,
    *,
    request_id: str | None,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> SearchExport:
    """Count, refuse or record, and hand back the file to stream. ``fmt`` is "csv" or
    "json"; more than ``max_rows`` matches is ``audit_export_too_large`` (with the
    count), and then nothing is recorded."""
    require_audit_reader(actor)
    kind = FORMATS.get(fmt)
    if kind is None:
        raise NotFound("export_format")
    with unit_of_work_for(actor) as uow:
        s = uow.session
        # Counting stops past the maximum: a huge organization's refusal costs what
        # max_rows + 1 rows cost (the message then says "more than").
        search = search_clause_in(s, actor, query)
        count = count_audit_in(s, search, cap=max_rows)
        if count > max_rows:
            count = count_audit_in(s, search)  # the whole count, for the message only
            # Decimals, so the message writes them as the reader writes numbers.
            raise DomainError("audit_export_too_large", num=Decimal(count), limit=Decimal(max_rows))
        filters = query.filter_args()
        record_export_in(s, actor, kind, rows=count, filters=filters, request_id=request_id)
    now = clock.now()
    day = clock.today_in(actor.time_zone).isoformat()
    meta = {
        "organization": actor.org_slug,
        "exported_at": moment_text(now),
        "filters": filters,
        "count": count,
    }
    encoder: _Csv | _Json = _Csv() if fmt == "csv" else _Json()
    return SearchExport(
        rows=count,
        filename=f"countersign-{actor.org_slug}-audit-{day}.{fmt}",
        mimetype=MIMETYPES[fmt],
        chunks=_stream(actor, query, encoder, meta, max_rows),
    )
