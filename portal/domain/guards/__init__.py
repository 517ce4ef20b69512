"""Transition guards: a small, safe boolean language that decides whether a transition is open.

A guard reads facts about the document and the acting principal and compares them::

    document.amount > 0
    document.fields.category in ["travel", "meals"] and document.amount <= 500
    "admin" in principal.roles
    document.requester != principal.member

The language has literals (decimal numbers such as ``12.50``, strings in single or double
quotes with only ``\\\\``, ``\\'`` and ``\\"`` as escapes, ``true``, ``false``, ``null`` and
lists ``[a, b]``), dotted paths rooted at ``document`` or ``principal``, and these operators,
loosest first: ``or``; ``and``; prefix ``not``; the comparisons ``== != < <= > >= in not in``
(one per expression, never chained); ``+ -``; ``* /``; prefix ``-``. Parentheses group.
There are no function calls, no attribute access beyond the paths and no truthiness: ``and``,
``or`` and ``not`` take booleans only.

The source is read by a hand-written tokenizer (``tokenizer``) and a recursive-descent
parser with a depth limit (``parser``) into a tree (``tree``); nothing here uses ``eval``,
``exec`` or ``compile``. Numbers are ``Decimal`` in a local context, never floats. ``parse``
raises only ``GuardSyntaxError``; ``evaluate`` (``evaluator``) raises only
``GuardEvalError``; ``check`` (``static_check``, against the flow's declared paths) returns
problems instead of raising, so a flow editor can list them all. Columns are 1-based and
count characters from the start of the source, newlines included, so a multi-line guard
still has one column per character.
"""

from __future__ import annotations

from portal.domain.guards.errors import GuardEvalError, GuardSyntaxError
from portal.domain.guards.evaluator import evaluate, is_satisfied
from portal.domain.guards.parser import MAX_DEPTH, MAX_LENGTH, parse
from portal.domain.guards.static_check import (
    DOCUMENT_PATHS,
    FIELD_TYPES,
    PRINCIPAL_PATHS,
    GuardProblem,
    check,
    known_paths,
)
from portal.domain.guards.tree import Guard

__all__ = [
    "DOCUMENT_PATHS",
    "FIELD_TYPES",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "PRINCIPAL_PATHS",
    "Guard",
    "GuardEvalError",
    "GuardProblem",
    "GuardSyntaxError",
    "check",
    "evaluate",
    "is_satisfied",
    "known_paths",
    "parse",
]
