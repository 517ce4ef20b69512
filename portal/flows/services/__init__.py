"""Flow drafts and published versions. One unit of work per public call.

- ``drafts``: read, save, discard a draft; a draft from a version.
- ``publishing``: publish a draft as the next version; seed the flows every
  organization starts with.
- ``transfer``: export a flow as JSON, import such a file into a draft.
- ``readiness``: grants of the current versions that can no longer resolve.
- ``listing``, ``pages``: what each flow admin page and editor request needs.
- ``route_preview``: who would approve, under a current version or the draft.
- ``validation``, ``references``: what the others share.

The services other features, the CLI and the benchmarks call are named here too.
"""

from __future__ import annotations

from portal.flows.services.drafts import (
    DraftView,
    discard_draft,
    draft_from_version,
    draft_graph,
    get_draft,
    save_draft,
)
from portal.flows.services.listing import FlowSummary, list_flows
from portal.flows.services.publishing import Published, publish_draft, seed_flows
from portal.flows.services.readiness import ReadinessWarning, flow_readiness
from portal.flows.services.references import References
from portal.flows.services.transfer import Export, export_flow, import_draft
from portal.flows.services.validation import FlowInvalid

__all__ = [
    "DraftView",
    "Export",
    "FlowInvalid",
    "FlowSummary",
    "Published",
    "ReadinessWarning",
    "References",
    "discard_draft",
    "draft_from_version",
    "draft_graph",
    "export_flow",
    "flow_readiness",
    "get_draft",
    "import_draft",
    "list_flows",
    "publish_draft",
    "save_draft",
    "seed_flows",
]
