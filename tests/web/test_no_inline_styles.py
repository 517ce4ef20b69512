"""The CSP allows no inline style and no inline script: nothing the pages are built from
may write a ``style`` attribute, an inline handler or a script body into markup.

Mail is the exception (mail clients read inline styles, and no CSP applies there).
Setting ``element.style`` from a script file is allowed by the CSP; writing a ``style``
attribute (``setAttribute("style", …)``, ``style="…"`` in markup built as text) is not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# As markup writes it (``style="…"``): not a variable or an object key named style.
STYLE_ATTRIBUTE = re.compile(r"""(?<![\w.-])style=["']""")
SET_STYLE = re.compile(r"""setAttribute(NS)?\(\s*(null\s*,\s*)?["']style["']""")
INLINE_HANDLER = re.compile(r"""<[a-z][^>]*\s(on[a-z]+|hx-on[:\w-]*)\s*=""", re.I)
SCRIPT_BODY = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>\s*\S", re.I)


def _files(folder: str, *suffixes: str, skip: tuple[str, ...] = ()) -> list[Path]:
    found = [
        p
        for p in (ROOT / folder).rglob("*")
        if p.suffix in suffixes and not any(part in p.parts for part in skip)
    ]
    assert found, f"nothing found under {folder}"
    return sorted(found)


PAGES = _files("portal/templates", ".html", skip=("emails",))
SCRIPTS = _files("portal/static", ".js", skip=("vendor",))
PYTHON = _files("portal", ".py")


def _hits(pattern: re.Pattern[str], paths: list[Path]) -> list[str]:
    hits = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    return hits


def test_the_patterns_catch_what_they_are_for():
    # Shown to match, so that an empty result below means something.
    assert STYLE_ATTRIBUTE.search('<rect style="fill:red">')
    assert STYLE_ATTRIBUTE.search("<rect x='1' style='fill:red'>")
    assert STYLE_ATTRIBUTE.search("const style = STYLE[role];") is None  # a variable is fine
    assert STYLE_ATTRIBUTE.search("el.setAttribute('style', 'x')") is None
    assert SET_STYLE.search("el.setAttribute('style', 'x')")
    assert INLINE_HANDLER.search('<button onclick="go()">')
    assert INLINE_HANDLER.search('<form hx-on::after-request="x">')
    assert SCRIPT_BODY.search("<script>alert(1)</script>")
    assert SCRIPT_BODY.search('<script src="/a.js"></script>') is None
    assert SCRIPT_BODY.search('<script type="application/json" id="x">{}</script>') is None
    assert STYLE_ATTRIBUTE.search('class="list-style"') is None


@pytest.mark.parametrize(
    "pattern", [STYLE_ATTRIBUTE, INLINE_HANDLER, SCRIPT_BODY], ids=["style", "handler", "script"]
)
def test_templates_write_no_inline_style_handler_or_script(pattern):
    assert _hits(pattern, PAGES) == []


def test_scripts_write_no_style_attribute():
    assert _hits(STYLE_ATTRIBUTE, SCRIPTS) + _hits(SET_STYLE, SCRIPTS) == []


def test_python_that_builds_markup_writes_no_style_attribute():
    assert _hits(STYLE_ATTRIBUTE, PYTHON) == []
