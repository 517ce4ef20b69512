"""The import-linter contracts in pyproject.toml state DESIGN §3's layers: each holds on
the code as it is, each breaks when a forbidden import is added, and every module of
``portal`` is named by some contract (a module no contract names is a rule nobody
checks)."""

from __future__ import annotations

import copy
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter import Contract, configuration
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract

from tests.architecture.stdlib_only import StandardLibraryOnlyContract

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"
CONTRACT_TYPES: dict[str, type[Contract]] = {
    "forbidden": ForbiddenContract,
    "layers": LayersContract,
    "standard_library_only": StandardLibraryOnlyContract,
}

# For each contract, imports that would break it: the allowed case (the code as it is)
# passes first, then each of these, added to the real graph, must break it.
BREACHES: dict[str, list[tuple[str, str]]] = {
    "domain-pure": [
        ("portal.domain.engine", "sqlalchemy"),
        ("portal.domain.graph", "flask"),
        ("portal.domain.chain", "portal.core.db"),
        ("portal.domain.fields", "portal.web.messages"),
    ],
    "layers": [
        ("portal.web.nav", "portal.inbox.queries"),  # web knowing a feature
        ("portal.web.auth", "portal.accounts.queries"),
        ("portal.accounts.services", "portal.flows.services"),  # a cycle between features
        ("portal.orgchart.queries", "portal.flows.queries"),
        ("portal.documents.queries.detail", "portal.inbox.queries"),
        ("portal.core.uow", "portal.web.auth"),  # infrastructure knowing web glue
        ("portal.core.outbox", "portal.notifications.delivery"),
        ("portal.flows.services", "portal.provisioning"),
        ("portal.documents.transitions", "portal.bench.transitions"),
        ("portal.inbox.queries", "portal.home.queries"),
        ("portal.documents.queries.detail", "portal.audit.queries"),
    ],
    "no-foreign-models": [
        ("portal.documents.transitions", "portal.accounts.models"),
        ("portal.inbox.queries", "portal.documents.models"),
        ("portal.flows.queries", "portal.orgchart.models"),
    ],
    "accounts-layers": [("portal.accounts.queries", "portal.accounts.services")],
    "orgchart-layers": [("portal.orgchart.queries", "portal.orgchart.services")],
    "flows-layers": [("portal.flows.queries", "portal.flows.services")],
    "documents-layers": [
        ("portal.documents.access", "portal.documents.transitions"),
        ("portal.documents.services", "portal.documents.views.detail"),
    ],
    "notifications-layers": [
        ("portal.notifications.models", "portal.notifications.queries"),
        ("portal.notifications.delivery", "portal.notifications.mail"),
    ],
    "deadlines-layers": [
        ("portal.deadlines.queries", "portal.deadlines.effects"),
        ("portal.deadlines.effects", "portal.deadlines.jobs"),
    ],
    "delegations-layers": [("portal.delegations.queries", "portal.delegations.services")],
    "audit-layers": [
        ("portal.audit.queries.search", "portal.audit.services.exports"),
        ("portal.audit.services.verification", "portal.audit.views"),
    ],
    "operations-layers": [("portal.operations.queries", "portal.operations.views")],
    "inbox-layers": [("portal.inbox.queries", "portal.inbox.views")],
    "home-layers": [("portal.home.queries", "portal.home.views")],
    "services-know-no-request": [
        ("portal.documents.transitions", "flask"),
        ("portal.flows.queries", "flask_login"),
        ("portal.accounts.services", "portal.web.tenancy"),
    ],
}


@cache
def _config() -> dict[str, Any]:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]


@cache
def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(
        _config()["root_package"], include_external_packages=True, cache_dir=None
    )


def _contract(contract_id: str) -> Contract:
    configuration.configure()  # the contracts time themselves with import-linter's clock
    config = _config()
    raw = next(c for c in config["contracts"] if c.get("id") == contract_id)
    # As lint-imports reads the file: TOML booleans arrive as the words.
    options = {k: str(v).lower() if isinstance(v, bool) else v for k, v in raw.items()}
    session = {"root_packages": [config["root_package"]], "include_external_packages": True}
    return CONTRACT_TYPES[options["type"]](options["name"], session, options)


def _kept(contract: Contract, graph: grimp.ImportGraph) -> bool:
    return contract.check(graph, verbose=False).kept


def test_every_contract_has_breaches_to_show_it_fails():
    assert {c["id"] for c in _config()["contracts"]} == set(BREACHES)


@pytest.mark.parametrize("contract_id", sorted(BREACHES))
def test_a_contract_holds_and_breaks_on_a_forbidden_import(contract_id: str):
    contract = _contract(contract_id)
    holds = _kept(contract, copy.deepcopy(_graph()))
    assert holds, f"{contract.name} is broken by the code itself: run make check-imports"
    for importer, imported in BREACHES[contract_id]:
        graph = copy.deepcopy(_graph())
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
        holds = _kept(contract, graph)
        assert not holds, f"{importer} -> {imported} passes {contract.name}"


def _named_in_layers(container: str) -> set[str]:
    names: set[str] = set()
    for options in _config()["contracts"]:
        if options["type"] == "layers" and container in options["containers"]:
            for layer in options["layers"]:
                for tail in layer.replace(":", "|").split("|"):
                    names.add(f"{container}.{tail.strip().strip('()')}")
    return names


PACKAGES = (
    "portal",
    "portal.accounts",
    "portal.orgchart",
    "portal.flows",
    "portal.documents",
    "portal.notifications",
    "portal.inbox",
    "portal.home",
    "portal.audit",
)


@pytest.mark.parametrize("container", PACKAGES)
def test_every_module_of_a_package_sits_in_its_layers(container: str):
    children = _graph().find_children(container)
    assert children, container
    assert children <= _named_in_layers(container)
