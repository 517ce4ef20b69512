"""The wheel carries compiled catalogues: the .po files are compiled to .mo as the
package is built (a checkout compiles them with `make translations`; they are never
committed). Everything else about the build is in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogues(build_py):
    def run(self) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        super().run()
        source = Path(__file__).resolve().parent / "portal" / "translations"
        target = Path(self.build_lib) / "portal" / "translations"
        for po in sorted(source.glob("*/LC_MESSAGES/messages.po")):
            mo = target / po.relative_to(source).with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as read:
                catalogue = read_po(read, locale=po.parts[-3])
            with mo.open("wb") as written:
                write_mo(written, catalogue, use_fuzzy=True)


setup(cmdclass={"build_py": BuildWithCatalogues})
