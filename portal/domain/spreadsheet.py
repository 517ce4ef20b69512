"""Cells a spreadsheet will not run: text that a spreadsheet would read as a formula.

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return, which
some programs skip before reading one) is a formula to Excel, LibreOffice and Google
Sheets: a document title such as ``=HYPERLINK("http://evil", "x")`` would run when an
auditor opens the export. Such a cell gets a leading apostrophe, which every one of them
shows as text and which a reader of the file can see for what it is (OWASP's advice).
"""

from __future__ import annotations

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """``text`` as a cell no spreadsheet takes for a formula."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text
