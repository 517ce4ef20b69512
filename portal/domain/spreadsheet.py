"""Cells a spreadsheet will not run: text that a spreadsheet would read as a formula.

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return, which
some programs skip before reading one) is a formula to Excel, LibreOffice and Google
Sheets: a document title such as ``=HYPERLINK("http://evil", "x")`` would run when an
auditor opens the export. Such a cell gets a leading apostrophe, which every one of them
shows as text and which a reader of the file can see for what it is (OWASP's advice).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """``text`` as a cell no spreadsheet takes for a formula."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


# A byte-order mark first: spreadsheet programs then read the file as UTF-8 (names in
# Chinese or Malay stay readable).
BOM = "\ufeff"


def csv_file(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A whole CSV file as the audit's downloads are written: the byte-order mark, a
    header row, CRLF line ends (RFC 4180), every text cell made safe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([safe_cell(v) if isinstance(v, str) else v for v in row] for row in rows)
    return BOM + out.getvalue()
