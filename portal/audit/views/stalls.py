"""Where approvals stall (``/o/<org>/audit/stalls``): four charts for one flow and a
period — time in each state, waiting now, approvals per approver, the weekly trend —
each drawn as SVG on the server, with its table and its CSV
(``/o/<org>/audit/stalls.csv?chart=…``, recorded as an export)."""

from __future__ import annotations

from typing import Any

from flask import Response, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_login import login_required

from portal.audit.queries.stalls import CHARTS, StallQuery, StallReport, stall_report
from portal.audit.services.stalls import export_stall_chart
from portal.audit.views import audit_required, bp
from portal.audit.views.stall_charts import charts_of
from portal.audit.views.stall_tables import TABLES, Words
from portal.domain.errors import NotFound
from portal.domain.spreadsheet import csv_file
from portal.web.errors import status_for
from portal.web.i18n import format_locale
from portal.web.messages import message_for
from portal.web.request_input import current_request_id
from portal.web.tenancy import current_actor


def _query() -> StallQuery:
    args = request.args
    return StallQuery(
        flow=args.get("flow", ""),
        version=args.get("version", ""),
        start=args.get("from", ""),
        end=args.get("to", ""),
    )


def _words() -> Words:
    return Words(str(get_locale()), format_locale())


def _csv_url(report: StallReport, chart: str) -> str:
    assert report.filter is not None
    values: dict[str, Any] = {"chart": chart, **report.filter.as_query()}
    return url_for("audit.stalls_csv", **values)


@bp.get("/stalls")
@login_required
@audit_required
def stalls() -> ResponseReturnValue:
    report = stall_report(current_actor(), _query())
    words = _words()
    chosen = report.filter
    flow = next((f for f in report.flows if chosen and f.kind == chosen.kind), None)
    page = render_template(
        "audit/stalls.html",
        report=report,
        words=words,
        query=_query(),
        chosen=chosen,
        versions=flow.versions if flow else (),
        refusal=message_for(report.refusal) if report.refusal else None,
        refused_field=report.refusal.field if report.refusal else None,
        charts=charts_of(report, words) if chosen else [],
        tables={key: TABLES[key](report, words) for key in CHARTS} if chosen else {},
        csv_url=lambda chart: _csv_url(report, chart),
    )
    return page, status_for(report.refusal) if report.refusal else 200


@bp.get("/stalls.csv")
@login_required
@audit_required
def stalls_csv() -> ResponseReturnValue:
    chart = request.args.get("chart", "")
    if chart not in CHARTS:
        raise NotFound("chart")
    report = export_stall_chart(current_actor(), _query(), chart, request_id=current_request_id())
    table = TABLES[chart](report, _words())
    assert report.filter is not None
    q = report.filter.as_query()
    name = f"stalls-{chart}-{q['flow']}-{q['version']}-{q['from']}-{q['to']}.csv"
    return Response(
        csv_file(table.csv_header(), table.csv_rows()),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
