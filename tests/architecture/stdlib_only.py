"""An import-linter contract type: the source packages import nothing but the Python
standard library and the packages named as allowed (``portal.domain`` itself).

The built-in ``forbidden`` contract lists what may not be imported; the domain's rule is
the other way round — everything not in the standard library is forbidden, including
any third-party package added later that no list would name.
"""

from __future__ import annotations

import sys
from typing import cast

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain.imports import Module


def _top(module: str) -> str:
    return module.split(".", 1)[0]


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


class StandardLibraryOnlyContract(Contract):
    """
    Configuration options:
        - source_modules: the packages whose every module is checked.
        - allowed_modules: packages they may import besides the standard library.
    """

    source_modules = fields.ListField(subfield=fields.ModuleField())
    allowed_modules = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        # The fields are parsed onto the contract as lists of modules.
        sources = [m.name for m in cast("list[Module]", self.source_modules)]
        allowed = [m.name for m in cast("list[Module]", self.allowed_modules)]
        checked = sorted(
            {m for m in graph.modules if any(_within(m, source) for source in sources)}
        )
        violations = []
        for importer in checked:
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if any(_within(imported, package) for package in allowed):
                    continue
                if _top(imported) in sys.stdlib_module_names:
                    continue
                lines = [
                    detail["line_number"]
                    for detail in graph.get_import_details(importer=importer, imported=imported)
                ]
                violations.append({"importer": importer, "imported": imported, "lines": lines})
        return ContractCheck(kept=not violations, metadata={"violations": violations})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for violation in check.metadata["violations"]:
            lines = ", ".join(f"l.{n}" for n in violation["lines"]) or "?"
            output.print_error(
                f"{violation['importer']} -> {violation['imported']} ({lines})", bold=False
            )
            output.new_line()
