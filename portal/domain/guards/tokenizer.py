"""The guard tokenizer: source text to numbers, strings, keywords, paths and operators."""

from __future__ import annotations

import string
from decimal import Decimal
from typing import NamedTuple

from portal.domain.guards.errors import syntax_error

MAX_STRING = 200
MAX_INTEGER_DIGITS = 20
MAX_FRACTION_DIGITS = 10

ROOTS = ("document", "principal")
KEYWORDS = frozenset({"and", "or", "not", "in", "true", "false", "null"})

# ASCII only on purpose: str.isdigit() and str.isalpha() accept other scripts' digits and letters.
_DIGITS = frozenset(string.digits)
_LOWER = frozenset(string.ascii_lowercase)
_WORD_START = frozenset(string.ascii_letters + "_")
_WORD = _WORD_START | _DIGITS
# A number or a path is read up to the first character that cannot continue a word, so
# ``12abc`` or ``1.2.3`` is one bad number rather than a number glued to something else.
_WORD_OR_DOT = _WORD | {"."}
_SEGMENT_REST = _LOWER | _DIGITS | {"_"}
# Browsers submit textarea line breaks as CRLF, so a carriage return is whitespace too.
_SPACE = frozenset(" \t\n\r")
_QUOTES = frozenset("'\"")
_ESCAPABLE = frozenset("\\'\"")
_TWO_CHAR_OPERATORS = frozenset({"==", "!=", "<=", ">="})
_ONE_CHAR_OPERATORS = frozenset("<>+-*/()[],")


class Token(NamedTuple):
    kind: str  # "number", "string", "keyword", "path", "operator" or "end"
    text: str  # as written in the source
    column: int
    value: Decimal | str | None = None  # a number's or a string's value


def _shown(char: str) -> str:
    # An invisible character would make "Unexpected character “”" unreadable.
    return char if char.isprintable() and char not in _SPACE else f"U+{ord(char):04X}"


class Lexer:
    """Reads tokens on demand, so errors surface in source order (left to right)."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._position = 0
        self._ahead: list[Token] = []

    def peek(self, offset: int = 0) -> Token:
        while len(self._ahead) <= offset:
            self._ahead.append(self._read())
        return self._ahead[offset]

    def next(self) -> Token:
        token = self.peek()
        self._ahead.pop(0)
        return token

    def _read(self) -> Token:
        source, i = self._source, self._position
        while i < len(source) and source[i] in _SPACE:
            i += 1
        if i >= len(source):
            self._position = i
            return Token("end", "", len(source) + 1)
        char = source[i]
        if char in _DIGITS:
            token, end = self._number(i)
        elif char in _WORD_START:
            token, end = self._word(i)
        elif char in _QUOTES:
            token, end = self._string(i)
        elif source[i : i + 2] in _TWO_CHAR_OPERATORS:
            token, end = Token("operator", source[i : i + 2], i + 1), i + 2
        elif char in _ONE_CHAR_OPERATORS:
            token, end = Token("operator", char, i + 1), i + 1
        else:
            raise syntax_error("guard_unexpected_character", i + 1, char=_shown(char))
        self._position = end
        return token

    def _run(self, start: int) -> int:
        end = start
        while end < len(self._source) and self._source[end] in _WORD_OR_DOT:
            end += 1
        return end

    def _number(self, start: int) -> tuple[Token, int]:
        end = self._run(start)
        text = self._source[start:end]
        whole, dot, fraction = text.partition(".")
        if (
            not set(whole) <= _DIGITS
            or not set(fraction) <= _DIGITS
            or len(whole) > MAX_INTEGER_DIGITS
            or (dot and not 1 <= len(fraction) <= MAX_FRACTION_DIGITS)
        ):
            raise syntax_error("guard_bad_number", start + 1, text=text)
        return Token("number", text, start + 1, Decimal(text)), end

    def _word(self, start: int) -> tuple[Token, int]:
        end = self._run(start)
        text = self._source[start:end]
        if text in KEYWORDS:
            return Token("keyword", text, start + 1), end
        segments = text.split(".")
        # A bare name (``foo``, ``True``, ``__import__``, even ``document`` alone) and any other
        # root are refused here: the only names a guard can read are document/principal paths.
        if len(segments) == 1 or segments[0] not in ROOTS:
            raise syntax_error("guard_unknown_name", start + 1, name=text)
        offset = start
        for segment in segments:
            if not segment or segment[0] not in _LOWER or not set(segment) <= _SEGMENT_REST:
                # Points at the bad segment: ``document.__class__`` blames ``__class__``.
                raise syntax_error("guard_unknown_name", offset + 1, name=text)
            offset += len(segment) + 1
        return Token("path", text, start + 1), end

    def _string(self, start: int) -> tuple[Token, int]:
        source, quote = self._source, self._source[start]
        chars: list[str] = []
        i = start + 1
        while True:
            if i >= len(source):
                raise syntax_error("guard_unterminated_string", start + 1)
            char = source[i]
            if char == quote:
                break
            if char == "\\":
                if i + 1 >= len(source):
                    raise syntax_error("guard_unterminated_string", start + 1)
                if source[i + 1] not in _ESCAPABLE:
                    raise syntax_error("guard_unexpected_character", i + 1, char="\\")
                chars.append(source[i + 1])
                i += 2
            else:
                chars.append(char)
                i += 1
        if len(chars) > MAX_STRING:
            raise syntax_error("guard_string_too_long", start + 1, limit=MAX_STRING)
        return Token("string", source[start : i + 1], start + 1, "".join(chars)), i + 1
