"""The org chart admin pages, driven through the Flask test client as acme's admin."""

from __future__ import annotations

import io
import re
from datetime import date

from portal.orgchart import services
from portal.orgchart.jobs import run_import
from tests.factories import retire_position, sign_in

CHART = "/o/acme-test/admin/chart"


def _error_rows(html: str) -> list[tuple[str, str]]:
    table = re.search(r'data-testid="row-errors".*?</table>', html, re.S)
    assert table, "no table of row errors on the page"
    cells = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td>", table.group(0))
    return [(row, column) for row, column in cells]


def test_the_chart_page_is_for_admins_only(app, client, login, acme, globex, make_member, today):
    services.create_unit(acme.admin.actor, code="FIN", name="Finance")
    services.create_unit(globex.admin.actor, code="G-OPS", name="Globex operations")
    mo = make_member(acme.org, "Mo Member")
    login(acme.admin)

    page = client.get(f"{CHART}/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Finance" in html
    assert "Globex operations" not in html

    member_browser, _ = sign_in(app, mo)
    assert member_browser.get(f"{CHART}/").status_code == 403
    assert member_browser.get(f"{CHART}/units/new").status_code == 403


def test_a_non_admin_cannot_post_a_new_unit(app, client, login, acme, make_member, today):
    mo = make_member(acme.org, "Mo Member")
    token = login(acme.admin)
    created = client.post(
        f"{CHART}/units/new", data={"code": "FIN", "name": "Finance", "csrf_token": token}
    )
    assert created.status_code == 302

    member_browser, member_token = sign_in(app, mo)
    refused = member_browser.post(
        f"{CHART}/units/new", data={"code": "OPS", "name": "Ops", "csrf_token": member_token}
    )
    assert refused.status_code == 403
    assert [u.code for u in services.get_chart(acme.admin.actor).units] == ["FIN"]


def test_a_duplicate_unit_code_is_shown_beside_the_code_field(client, login, acme, today):
    token = login(acme.admin)
    first = client.post(
        f"{CHART}/units/new",
        data={"code": "FIN", "name": "Finance", "parent_id": "", "csrf_token": token},
    )
    assert first.status_code == 302
    assert first.headers["Location"].endswith(f"{CHART}/")

    again = client.post(
        f"{CHART}/units/new",
        data={"code": "FIN", "name": "Finance again", "parent_id": "", "csrf_token": token},
    )

    assert again.status_code == 422
    html = again.get_data(as_text=True)
    assert re.search(r'<p class="field-error" id="code-error">[^<]*FIN[^<]*already used', html)
    assert 'value="Finance again"' in html  # what was typed is kept
    assert [u.name for u in services.get_chart(acme.admin.actor).units] == ["Finance"]


def test_a_position_form_refusing_a_reporting_cycle_says_why_beside_the_field(
    client, login, acme, today
):
    admin = acme.admin.actor
    fin = services.create_unit(admin, code="FIN", name="Finance")
    boss = services.create_position(admin, code="BOSS", title="Boss", unit_id=fin.id)
    aide = services.create_position(
        admin, code="AIDE", title="Aide", unit_id=fin.id, reports_to_id=boss.id
    )
    token = login(acme.admin)

    def save_boss(reports_to: str, title: str):
        return client.post(
            f"{CHART}/positions/{boss.id}",
            data={
                "code": "BOSS",
                "title": title,
                "unit_id": str(fin.id),
                "reports_to_id": reports_to,
                "active": "y",
                "csrf_token": token,
            },
        )

    assert save_boss("", "Big boss").status_code == 302

    refused = save_boss(str(aide.id), "Renamed by the refused save")

    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert re.search(
        r'id="reports_to_id-error">BOSS cannot report to AIDE: that would make a reporting cycle',
        html,
    )
    saved = services.get_position(admin, boss.id)
    assert (saved.title, saved.reports_to_id) == ("Big boss", None)


def _upload(client, token: str, data: bytes, kind: str = "units"):
    return client.post(
        f"{CHART}/import",
        data={"kind": kind, "file": (io.BytesIO(data), "units.csv"), "csrf_token": token},
        content_type="multipart/form-data",
    )


def _worked_off(client, acme, accepted) -> str:
    """The worker runs the queued import; the status page as the admin then sees it."""
    assert accepted.status_code == 303
    status_url = accepted.headers["Location"]
    job_id = int(status_url.rsplit("/", 1)[1])
    waiting = client.get(status_url).get_data(as_text=True)
    assert 'data-status="queued"' in waiting and 'hx-trigger="every 1s"' in waiting
    assert run_import(acme.org.id, job_id) in ("done", "failed")
    assert run_import(acme.org.id, job_id) == "not queued"  # a second delivery does nothing
    return client.get(status_url).get_data(as_text=True)


def test_an_uploaded_csv_with_bad_rows_lists_them_and_imports_nothing(client, login, acme, today):
    token = login(acme.admin)

    good = _upload(
        client,
        token,
        b"code,name,parent_code\nHQ,Head office,\nFIN,Finance,HQ\nOPS,Operations,HQ\n",
    )
    done = _worked_off(client, acme, good)
    assert "Imported: 3 created, 0 updated." in done
    assert "hx-trigger" not in done  # finished: the page stops asking

    bad = _upload(
        client, token, b"code,name,parent_code\nLAB,Lab,HQ\n,Nameless,\nMKT,Marketing,NOWHERE\n"
    )

    html = _worked_off(client, acme, bad)
    assert 'data-status="failed"' in html
    assert _error_rows(html) == [("3", "code"), ("4", "parent_code")]
    assert "There is no unit with the code “NOWHERE”." in html
    assert "Imported:" not in html
    assert [u.code for u in services.get_chart(acme.admin.actor).units] == ["HQ", "FIN", "OPS"]


def test_a_cell_no_row_could_use_is_refused_at_upload_naming_its_row(client, login, acme, today):
    token = login(acme.admin)
    assert _upload(client, token, b"code,name\nHQ,Head office\n").status_code == 303

    refused = _upload(client, token, b"code,name\nLAB,Lab\x00oratory\nOPS,Ops\x07\n")

    assert refused.status_code == 422
    assert _error_rows(refused.get_data(as_text=True)) == [("2", "name"), ("3", "name")]


def test_another_orgs_import_is_not_found(app, client, login, acme, globex, today):
    token = login(acme.admin)
    mine = _upload(client, token, b"code,name\nHQ,Head office\n").headers["Location"]
    assert client.get(mine).status_code == 200
    browser, theirs_token = sign_in(app, globex.admin)
    accepted = browser.post(
        "/o/globex-test/admin/chart/import",
        data={
            "kind": "units",
            "file": (io.BytesIO(b"code,name\nG,G\n"), "g.csv"),
            "csrf_token": theirs_token,
        },
        content_type="multipart/form-data",
    )
    theirs = accepted.headers["Location"].rsplit("/", 1)[1]

    assert client.get(f"{CHART}/import/{theirs}").status_code == 404


def test_an_unreadable_upload_is_refused_beside_the_file_field(client, login, acme, today):
    token = login(acme.admin)
    ok = client.post(
        f"{CHART}/import",
        data={
            "kind": "units",
            "file": (io.BytesIO("code,name\nZRH,Zürich\n".encode()), "u.csv"),
            "csrf_token": token,
        },
        content_type="multipart/form-data",
    )
    assert "Imported: 1 created" in _worked_off(client, acme, ok)

    refused = client.post(
        f"{CHART}/import",
        data={
            "kind": "units",
            "file": (io.BytesIO("code,name\nGVA,Genève\n".encode("latin-1")), "u.csv"),
            "csrf_token": token,
        },
        content_type="multipart/form-data",
    )

    assert refused.status_code == 422
    assert re.search(
        r'id="file-error">The file could not be read as UTF-8 CSV', refused.get_data(as_text=True)
    )
    assert [u.code for u in services.get_chart(acme.admin.actor).units] == ["ZRH"]


def test_another_orgs_unit_and_position_pages_do_not_exist(client, login, acme, globex, today):
    g_unit = services.create_unit(globex.admin.actor, code="G-FIN", name="Globex finance")
    g_pos = services.create_position(
        globex.admin.actor, code="G-CFO", title="Globex CFO", unit_id=g_unit.id
    )
    a_unit = services.create_unit(acme.admin.actor, code="FIN", name="Finance")
    token = login(acme.admin)
    assert client.get(f"{CHART}/units/{a_unit.id}").status_code == 200

    assert client.get(f"{CHART}/units/{g_unit.id}").status_code == 404
    assert client.get(f"{CHART}/positions/{g_pos.id}").status_code == 404
    posted = client.post(
        f"{CHART}/units/{g_unit.id}",
        data={"code": "G-FIN", "name": "Taken over", "csrf_token": token},
    )
    assert posted.status_code == 404
    assert services.get_unit(globex.admin.actor, g_unit.id).name == "Globex finance"


def test_ending_another_orgs_holding_is_a_404_and_changes_nothing(
    client, login, acme, globex, today
):
    gus = globex.admin.actor
    g_pos = services.create_position(
        gus,
        code="G-CFO",
        title="Globex CFO",
        unit_id=services.create_unit(gus, code="G-FIN", name="Globex finance").id,
    )
    g_holding = services.assign_position(
        gus, member_id=globex.admin.member_id, position_id=g_pos.id, valid_from=date(2026, 1, 1)
    )
    admin = acme.admin.actor
    a_pos = services.create_position(
        admin,
        code="CFO",
        title="CFO",
        unit_id=services.create_unit(admin, code="FIN", name="Finance").id,
    )
    a_holding = services.assign_position(
        admin, member_id=acme.admin.member_id, position_id=a_pos.id, valid_from=date(2026, 1, 1)
    )
    token = login(acme.admin)
    confirmed = {"csrf_token": token, "last_day": "2026-03-16", "confirm": "2026-03-16"}
    ended = client.post(f"{CHART}/holdings/{a_holding.id}/end", data=confirmed)
    assert ended.status_code == 302
    assert services.get_chart(admin, as_of=date(2026, 3, 17)).positions[a_pos.id].holders == []

    assert client.get(f"{CHART}/holdings/{g_holding.id}/end").status_code == 404
    refused = client.post(f"{CHART}/holdings/{g_holding.id}/end", data=confirmed)

    assert refused.status_code == 404
    [holder] = services.get_chart(gus, as_of=date(2027, 1, 1)).positions[g_pos.id].holders
    assert (holder.holding_id, holder.valid_to) == (g_holding.id, None)


def test_a_units_head_is_chosen_among_its_own_active_seats_only(client, login, acme, today):
    admin = acme.admin.actor
    fin = services.create_unit(admin, code="FIN", name="Finance")
    ops = services.create_unit(admin, code="OPS", name="Operations")
    cfo = services.create_position(
        admin, code="CFO", title="Chief financial officer", unit_id=fin.id
    )
    old = services.create_position(admin, code="OLD", title="Retired seat", unit_id=fin.id)
    retire_position(admin, old.id)
    services.create_position(admin, code="COO", title="Chief operating officer", unit_id=ops.id)
    login(acme.admin)

    html = client.get(f"{CHART}/units/{fin.id}").get_data(as_text=True)
    select = re.search(r'<select[^>]*id="head_position_id".*?</select>', html, re.S)
    assert select, "no head picker on the unit page"
    offered = re.findall(r'<option[^>]*value="(\d*)"', select.group(0))
    assert offered == ["", str(cfo.id)]


def test_an_import_whose_worker_went_away_can_be_started_again(client, login, acme, today):
    from datetime import timedelta

    from sqlalchemy import update

    from portal.core.clock import clock
    from portal.core.uow import unit_of_work
    from portal.orgchart.models import ImportJob

    token = login(acme.admin)
    status_url = _upload(client, token, b"code,name\nHQ,Head office\n").headers["Location"]
    job_id = int(status_url.rsplit("/", 1)[1])
    restart = f"{CHART}/import/{job_id}/restart"
    refused = client.post(restart, data={"csrf_token": token}, follow_redirects=True)
    assert "That import is not stuck" in refused.get_data(as_text=True)  # queued: leave it

    # A worker took it and died: it has said "running" for an hour.
    with unit_of_work(acme.org.id) as uow:
        uow.session.execute(
            update(ImportJob)
            .where(ImportJob.id == job_id)
            .values(status="running", started_at=clock.now() - timedelta(hours=1))
        )
    stuck = client.get(status_url).get_data(as_text=True)
    assert "the worker running it went away" in stuck and "hx-trigger" not in stuck

    assert client.post(restart, data={"csrf_token": token}).status_code == 303
    assert run_import(acme.org.id, job_id) == "done"
    assert "Imported: 1 created" in client.get(status_url).get_data(as_text=True)
