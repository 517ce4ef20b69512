"""The stall charts' CSV: recorded as an export (who took which chart of which flow and
period, how many rows) in the unit of work that computed it, before a byte is sent."""

from __future__ import annotations

from portal.audit.models import ExportKind
from portal.audit.queries.stalls import CHARTS, StallQuery, StallReport, stall_report_in
from portal.audit.services.recording import record_export_in
from portal.core.uow import unit_of_work_for
from portal.domain.actor import Actor, require_audit_reader
from portal.domain.errors import NotFound


def export_stall_chart(
    actor: Actor, query: StallQuery, chart: str, *, request_id: str | None = None
) -> StallReport:
    """The figures behind ``chart`` (one of ``CHARTS``; any other is not found), the
    export recorded with the filter in its one spelling. A filter that cannot be read
    is refused (nothing recorded)."""
    require_audit_reader(actor)
    if chart not in CHARTS:
        raise NotFound("chart")
    with unit_of_work_for(actor) as uow:
        report = stall_report_in(uow.session, actor, query)
        assert report.filter is not None  # refused filters were raised
        record_export_in(
            uow.session,
            actor,
            ExportKind.STALLS_CSV,
            rows=report.rows_in(chart),
            filters={"chart": chart, **report.filter.as_query()},
            request_id=request_id,
        )
        return report
