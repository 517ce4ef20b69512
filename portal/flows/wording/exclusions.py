"""Exclusive approval in the reader's words: why a member of a step's band is left out
of it (``domain.exclusive``). One wording for the route preview page and the editor's
"Who would approve?"."""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import gettext as _

from portal.domain.exclusive import Exclusion
from portal.domain.graph import Graph


def exclusion_text(
    exclusion: Exclusion, graph: Graph, members: Mapping[int, str], locale: str
) -> str:
    """ "Nurul Huda is left out: only she can decide “Reviewed” …"."""
    name = members.get(exclusion.member, f"#{exclusion.member}")
    step = graph.state_label(exclusion.step, locale)
    if exclusion.decided:
        return _(
            "%(member)s is left out: they already decided “%(step)s” on this document, and under exclusive approval nobody decides two steps.",
            member=name,
            step=step,
        )
    return _(
        "%(member)s is left out: nobody else can decide “%(step)s”, and under exclusive approval nobody decides two steps.",
        member=name,
        step=step,
    )


def exclusive_note() -> str:
    """What the preview says first about a flow with exclusive approval."""
    return _(
        "This flow has exclusive approval: nobody decides more than one step of a document, so each step lists only who is left once the earlier steps are staffed."
    )
