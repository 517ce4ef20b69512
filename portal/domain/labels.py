"""Text in every language a flow speaks: a state's, an action's, a field's or the flow's
own name, each ``Labels`` a locale -> text mapping with English as the fallback."""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping
from typing import TypeVar, overload

from portal.domain.locales import DEFAULT_LOCALE

_T = TypeVar("_T")


class Labels(Mapping[str, str]):
    """Locale -> text, immutable. ``en`` is required (the validator says so)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        self._items = dict(items)

    def __getitem__(self, locale: str) -> str:
        return self._items[locale]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    # The ABC's generic versions go through __getitem__ one key at a time; the
    # validator reads every label of every element on each editor change.
    @overload
    def get(self, locale: str, /) -> str | None: ...
    @overload
    def get(self, locale: str, default: str | _T, /) -> str | _T: ...
    def get(self, locale: str, default: object = None) -> object:
        return self._items.get(locale, default)

    def items(self) -> ItemsView[str, str]:
        return self._items.items()

    def __contains__(self, locale: object) -> bool:
        return locale in self._items

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._items == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Labels({self._items!r})"

    def text(self, locale: str) -> str:
        """The label in ``locale``, falling back to English, then to any label at all."""
        for candidate in (locale, DEFAULT_LOCALE):
            value = self._items.get(candidate, "").strip()
            if value:
                return value
        return next((v for v in self._items.values() if v.strip()), "")
