"""The org chart's services: reading it (``chart``), what its forms offer (``pickers``)
and editing it (``editing``). One unit
of work per call; admins only for edits. The services other features, the demo and the
benchmarks call are named here too."""

from __future__ import annotations

from portal.orgchart.queries import Choice
from portal.orgchart.services.chart import (
    ChartView,
    HolderView,
    PositionView,
    UnitView,
    get_chart,
)
from portal.orgchart.services.editing import (
    assign_position,
    create_position,
    create_unit,
    get_position,
    get_unit,
    update_position,
    update_unit,
)
from portal.orgchart.services.ending import HoldingEnding, end_holding, preview_end_holding

__all__ = [
    "ChartView",
    "Choice",
    "HolderView",
    "HoldingEnding",
    "PositionView",
    "UnitView",
    "assign_position",
    "create_position",
    "create_unit",
    "end_holding",
    "get_chart",
    "get_position",
    "get_unit",
    "preview_end_holding",
    "update_position",
    "update_unit",
]
