"""The gettext markers of the domain: they only mark strings for extraction."""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 - the conventional gettext marker name
    return message


# A plain string, or (singular, plural) for messages counted by their "num" parameter.
def N_plural(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802
    """Marks a message counted by its ``num`` parameter (extracted as a plural entry)."""
    return (singular, plural)
