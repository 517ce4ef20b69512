"""The audit search's filter as the query string holds it: what each value may be, and
the one canonical spelling of a filter (shareable links, export links, the record of an
export).

Reading is forgiving in one way only: a bad value is refused on its own (a refusal that
names its field) and left out, and the rest of the filter still applies — an auditor who
mistyped one day still sees the search the other fields ask for. Nothing is guessed: a
day is YYYY-MM-DD, an amount is ASCII digits with a point for decimals, an id is ASCII
digits. A range that ends before it starts is refused whole (both ends left out).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from datetime import date
from decimal import Decimal, localcontext

from portal.domain.days import iso_day
from portal.domain.errors import DomainError
from portal.domain.money import LIMIT, STORED_PLACES, parse_amount
from portal.domain.text_input import MAX_ID, clean_text

PER_PAGE = 25
# Deeper than anyone pages by hand; bounds the OFFSET a request can ask of the database.
MAX_PAGE = 100_000
# A reference is at most 32 characters; a title search of more than this is no search.
MAX_REFERENCE = 32
MAX_TEXT = 200
MAX_KEY = 63
# The state option that lists the drafts their requesters threw away (listed nowhere else).
DISCARDED = "discarded"

# Sort keys as the query string names them: "created" ascending, "-created" descending.
SORT_KEYS = ("reference", "kind", "title", "requester", "amount", "state", "created", "decided")
DEFAULT_SORT = "-created"

_KEY = re.compile(r"[a-z][a-z0-9_]{0,62}")
_ID = re.compile(r"[0-9]{1,19}")
# What an amount filter is written as in a shareable link: the wire's form.
AMOUNT_EXAMPLE = "1234.50"


@dataclass(frozen=True)
class AuditQuery:
    kind: str | None = None
    state: str | None = None
    requester_id: int | None = None
    # Anyone who decided a step of the document (the requester's own acts aside).
    approver_id: int | None = None
    # Anyone who decided a step under someone else's cover (via = delegation).
    delegate_id: int | None = None
    created_from: date | None = None
    created_to: date | None = None
    # The last decision: when the document entered the state it is in.
    decided_from: date | None = None
    decided_to: date | None = None
    amount_min: Decimal | None = None
    amount_max: Decimal | None = None
    reference: str | None = None
    # Words in the title or the description.
    text: str | None = None
    sort: str = DEFAULT_SORT
    page: int = 1

    @property
    def sort_key(self) -> str:
        return self.sort.removeprefix("-")

    @property
    def descending(self) -> bool:
        return self.sort.startswith("-")

    @property
    def filtered(self) -> bool:
        """Whether any filter narrows the search (sort and page aside)."""
        return any(
            getattr(self, f.name) is not None for f in fields(self) if f.name not in _NOT_FILTERS
        )

    @property
    def discarded(self) -> bool:
        return self.state == DISCARDED

    def to_args(self) -> dict[str, str]:
        """The query string of this search: only what differs from the defaults, each
        value in its one spelling (days ISO, amounts plain, ids in digits)."""
        args: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == _DEFAULTS.get(f.name):
                continue
            if isinstance(value, Decimal):
                args[f.name] = format(value, "f")
            elif isinstance(value, date):
                args[f.name] = value.isoformat()
            else:
                args[f.name] = str(value)
        return args

    def filter_args(self) -> dict[str, str]:
        """``to_args`` without the page: what an export and its record are of."""
        args = self.to_args()
        args.pop("page", None)
        return args

    def on_page(self, page: int) -> AuditQuery:
        return replace(self, page=page)

    def sorted_by(self, sort: str) -> AuditQuery:
        """The same search sorted by ``sort``, from its first page."""
        return replace(self, sort=sort, page=1)


_NOT_FILTERS = frozenset({"sort", "page"})
_DEFAULTS: dict[str, object] = {"sort": DEFAULT_SORT, "page": 1}


def parse_audit_query(args: Mapping[str, str]) -> tuple[AuditQuery, list[DomainError]]:
    """The search the query string asks for, and a refusal for each value that could not
    be read (that value left out; the others apply)."""
    refusals: list[DomainError] = []
    values: dict[str, object] = {}

    def take(name: str, read: object) -> None:
        raw = args.get(name)
        if raw is None:
            return
        try:
            text = clean_text(str(raw), field=name, limit=1_000).strip()
            if text == "":
                return
            value = read(text, name)  # type: ignore[operator]
        except DomainError as error:
            refusals.append(error)
            return
        if value is not None:
            values[name] = value

    take("kind", _key)
    take("state", _key)
    for name in ("requester_id", "approver_id", "delegate_id"):
        take(name, _member)
    for name in ("created_from", "created_to", "decided_from", "decided_to"):
        take(name, _day)
    take("amount_min", _amount)
    take("amount_max", _amount)
    take("reference", _reference)
    take("text", _words)
    take("sort", _sort)
    take("page", _page)
    _check_range(values, refusals, "created_from", "created_to", "audit_dates_reversed")
    _check_range(values, refusals, "decided_from", "decided_to", "audit_dates_reversed")
    _check_range(values, refusals, "amount_min", "amount_max", "audit_amounts_reversed")
    return AuditQuery(**values), refusals  # type: ignore[arg-type]


def _check_range(
    values: dict[str, object], refusals: list[DomainError], low: str, high: str, code: str
) -> None:
    start, end = values.get(low), values.get(high)
    if start is None or end is None or start <= end:  # type: ignore[operator]
        return
    # Neither end is trusted over the other: the range is left out whole.
    del values[low], values[high]
    shown = {
        "start": _shown(start),
        "end": _shown(end),
    }
    refusals.append(DomainError(code, field=high, **shown))


def _shown(value: object) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _key(text: str, field: str) -> str | None:
    # A kind or state key; anything else names none of them and is refused as such.
    if not _KEY.fullmatch(text):
        raise DomainError("audit_key_unknown", field=field)
    return text


def _member(text: str, field: str) -> int:
    # Another organization's member id is read like any id: it simply matches nothing.
    if not _ID.fullmatch(text) or not 0 < int(text) <= MAX_ID:
        raise DomainError("audit_member_unknown", field=field)
    return int(text)


def _day(text: str, field: str) -> date:
    day = iso_day(text)
    if day is None:
        raise DomainError("audit_day_invalid", field=field)
    return day


def _amount(text: str, field: str) -> Decimal:
    try:
        amount = parse_amount(text, field=field)
    except DomainError:
        raise DomainError("audit_amount_invalid", field=field, example=AMOUNT_EXAMPLE) from None
    if amount < 0:
        raise DomainError("audit_amount_negative", field=field)
    if amount >= LIMIT:
        raise DomainError("audit_amount_too_large", field=field, limit=LIMIT)
    with localcontext() as ctx:
        ctx.prec = 40
        if amount.quantize(Decimal(1).scaleb(-STORED_PLACES)) != amount:
            raise DomainError("audit_amount_too_precise", field=field, num=STORED_PLACES)
    # One spelling for one value: "10", "10.0" and "10.00" are the same filter.
    return amount.normalize() if amount != amount.to_integral() else amount.quantize(Decimal(1))


def _reference(text: str, field: str) -> str:
    if len(text) > MAX_REFERENCE:
        raise DomainError("audit_value_too_long", field=field, limit=MAX_REFERENCE)
    return text.upper()


def _words(text: str, field: str) -> str:
    if len(text) > MAX_TEXT:
        raise DomainError("audit_value_too_long", field=field, limit=MAX_TEXT)
    return text


def _sort(text: str, field: str) -> str:
    if text.removeprefix("-") not in SORT_KEYS:
        raise DomainError("audit_sort_unknown", field=field, key=text[:40])
    return text


def _page(text: str, field: str) -> int:
    if not _ID.fullmatch(text):
        raise DomainError("audit_page_invalid", field=field, max=MAX_PAGE)
    number = int(text)
    if not 1 <= number <= MAX_PAGE:
        raise DomainError("audit_page_invalid", field=field, max=MAX_PAGE)
    return number
