"""Every string the UI can show is extracted and translated, placeholders intact."""

from __future__ import annotations

import re
from io import BytesIO

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from portal.config import PACKAGE_DIR, SUPPORTED_LOCALES, TRANSLATIONS_DIR

PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "_l": None,
    "lazy_gettext": None,
    "N_": None,
    "N_plural": (1, 2),
}


def _catalogue(locale: str):
    path = TRANSLATIONS_DIR / locale / "LC_MESSAGES" / "messages.po"
    return read_po(BytesIO(path.read_bytes()), locale=locale)


def _source_msgids() -> set[str]:
    method_map = [
        ("portal/**.py", "python"),
        ("portal/templates/**.html", "jinja2"),
        ("portal/templates/**.txt", "jinja2"),
    ]
    found: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(PACKAGE_DIR.parent), method_map=method_map, keywords=KEYWORDS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def test_every_string_in_the_code_is_in_the_catalogues():
    in_source = _source_msgids()
    assert "Sign in" in in_source  # the extraction itself works
    for locale in SUPPORTED_LOCALES:
        ids = {m.id[0] if isinstance(m.id, tuple) else m.id for m in _catalogue(locale) if m.id}
        missing = sorted(in_source - ids)
        assert missing == [], f"{locale}: run `make i18n` and translate {missing[:5]}"


@pytest.mark.parametrize("locale", [loc for loc in SUPPORTED_LOCALES if loc != "en"])
def test_every_message_is_translated_with_the_same_placeholders(locale):
    checked = 0
    for message in _catalogue(locale):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"{locale}: untranslated {ids[0]!r}"
        assert "fuzzy" not in message.flags, f"{locale}: fuzzy {ids[0]!r}"
        expected = set(PLACEHOLDER.findall(ids[-1])) | set(PLACEHOLDER.findall(ids[0]))
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) <= expected, f"{locale}: {ids[0]!r}"
            assert set(PLACEHOLDER.findall(text)) >= set(PLACEHOLDER.findall(ids[0])) - {"num"}
        checked += 1
    assert checked > 100
