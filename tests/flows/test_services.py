"""Flow drafts, published versions, import/export, seeding and readiness through their
services, with globex always present and always invisible."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from portal.accounts import services as accounts
from portal.core.clock import clock
from portal.core.db import rows_changed
from portal.core.uow import platform_work, unit_of_work
from portal.domain import graph_json
from portal.domain.actor import Role
from portal.domain.errors import Conflict, DomainError, Forbidden, NotFound
from portal.domain.graph import Grant, Grantee, GranteeKind, OnVacancy
from portal.domain.graph_json import GraphFormatError
from portal.domain.labels import Labels
from portal.domain.validate import errors_in
from portal.flows import queries
from portal.flows.seeded import SEEDED_KINDS
from portal.flows.services import (
    drafts,
    listing,
    publishing,
    readiness,
    transfer,
    validation,
)
from portal.flows.services.validation import FlowInvalid
from portal.orgchart import services as orgchart
from tests.factories import retire_position

postgres_only = pytest.mark.postgres_only


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


def _codes(violations) -> list[str]:
    return [v.code for v in errors_in(violations)]


def _relabelled(graph, en: str):
    return replace(graph, labels=Labels({**graph.labels, "en": en}))


def _granting(graph, *grants: Grant):
    """The graph with its grants replaced (the leave request's one step is ``approved``)."""
    return replace(graph, grants=tuple(grants))


def _member_grant(member_id: int) -> Grant:
    return Grant(state="approved", grantee=Grantee(kind=GranteeKind.MEMBER, member=member_id))


def _position_grant(position_id: int, on_vacancy: str | None = None) -> Grant:
    return Grant(
        state="approved",
        grantee=Grantee(kind=GranteeKind.POSITION, position=position_id),
        on_vacancy=on_vacancy,
    )


def _publish(actor, graph):
    """Save ``graph`` over whatever draft there is and publish it."""
    current = drafts.get_draft(actor, graph.kind).revision
    draft = drafts.save_draft(actor, graph.kind, graph, revision=current)
    return publishing.publish_draft(actor, graph.kind, revision=draft.revision).view


def _seat(actor, code: str = "CFO"):
    unit = orgchart.create_unit(actor, code=f"U-{code}", name=f"{code} unit")
    return orgchart.create_position(actor, code=code, title=f"{code} seat", unit_id=unit.id)


def _leave(actor):
    return queries.current_version(actor, "leave_request").graph


def _claim(actor):
    return queries.current_version(actor, "expense_claim").graph


# --- seeding -----------------------------------------------------------------------------


def test_every_new_organization_starts_with_version_one_of_the_seeded_flows(acme, globex):
    admin = acme.admin.actor

    assert [f.kind for f in listing.list_flows(admin)] == sorted(SEEDED_KINDS)
    for kind in SEEDED_KINDS:
        [v1] = queries.list_versions(admin, kind)
        assert (v1.version, v1.published_by) == (1, None)
        view = queries.get_version(admin, kind, 1)
        assert view.graph.kind == kind
        assert view.digest == graph_json.digest_of(view.graph)
    assert all(f.draft_revision is None for f in listing.list_flows(admin))


def test_seeded_floors_are_in_the_organizations_own_currency(acme, make_org, make_member):
    dollars = queries.current_version(acme.admin.actor, "purchase_request").graph
    assert {g.currency for g in dollars.grants} == {"USD"}

    org = make_org("euro-test", "Euro Test", base_currency="EUR")
    eva = make_member(org, "Eva Euro", roles=(Role.ADMIN,)).actor

    euros = queries.current_version(eva, "purchase_request").graph
    assert {g.currency for g in euros.grants} == {"EUR"}
    assert errors_in(drafts.get_draft(eva, "purchase_request").violations) == []


def test_seeding_again_publishes_nothing_and_changes_nothing(acme, globex):
    admin = acme.admin.actor
    before = {kind: queries.list_versions(admin, kind) for kind in SEEDED_KINDS}

    assert publishing.seed_flows(acme.org.id) == []

    assert {kind: queries.list_versions(admin, kind) for kind in SEEDED_KINDS} == before


def test_seeding_never_overwrites_an_organizations_own_version(acme, globex):
    admin = acme.admin.actor
    ours = _relabelled(queries.current_version(admin, "expense_claim").graph, "Our claims")
    assert _publish(admin, ours).version == 2

    assert publishing.seed_flows(acme.org.id) == []

    current = queries.current_version(admin, "expense_claim")
    assert (current.version, current.graph.labels["en"]) == (2, "Our claims")
    assert [v.version for v in queries.list_versions(admin, "expense_claim")] == [2, 1]


# --- drafts ------------------------------------------------------------------------------


def test_with_no_draft_the_editor_opens_on_the_current_version_as_revision_zero(acme, globex):
    admin = acme.admin.actor

    draft = drafts.get_draft(admin, "expense_claim")

    assert (draft.revision, draft.base_version, draft.saved) == (0, 1, False)
    assert draft.graph == queries.current_version(admin, "expense_claim").graph
    assert _codes(draft.violations) == []
    assert draft.updated_by is None


def test_each_save_names_the_revision_it_was_edited_from_and_bumps_it(acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph

    first = drafts.save_draft(admin, "expense_claim", _relabelled(graph, "First"), revision=0)
    assert (first.revision, first.base_version, first.updated_by) == (1, 1, "Alice Admin")
    second = drafts.save_draft(admin, "expense_claim", _relabelled(graph, "Second"), revision=1)
    assert second.revision == 2

    reloaded = drafts.get_draft(admin, "expense_claim")
    assert (reloaded.revision, reloaded.graph.labels["en"]) == (2, "Second")
    assert [f.draft_revision for f in listing.list_flows(admin)] == [2, None, None]


def test_a_stale_save_is_refused_and_changes_nothing(acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", _relabelled(graph, "First"), revision=0)
    drafts.save_draft(admin, "expense_claim", _relabelled(graph, "Second"), revision=1)

    for stale in (0, 1, 7):
        error = _refusal(
            drafts.save_draft, admin, "expense_claim", _relabelled(graph, "Lost"), revision=stale
        )
        assert isinstance(error, Conflict)
        assert (error.code, error.params) == ("stale_revision", {"current": 2})

    draft = drafts.get_draft(admin, "expense_claim")
    assert (draft.revision, draft.graph.labels["en"]) == (2, "Second")


def test_an_invalid_graph_is_saved_with_its_violations(acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    valid = drafts.save_draft(admin, "expense_claim", graph, revision=0)
    assert (_codes(valid.violations), valid.publishable) == ([], True)

    invalid = drafts.save_draft(admin, "expense_claim", _granting(graph), revision=1)

    assert invalid.revision == 2
    assert set(_codes(invalid.violations)) == {"gate_without_grant"}
    assert not invalid.publishable
    assert drafts.get_draft(admin, "expense_claim").graph.grants == ()


def test_the_draft_graph_is_the_draft_or_else_the_current_version_unjudged(acme, globex):
    admin = acme.admin.actor
    current = queries.current_version(admin, "expense_claim").graph
    assert drafts.draft_graph(admin, "expense_claim") == current

    drafts.save_draft(admin, "expense_claim", _granting(current), revision=0)  # invalid

    assert drafts.draft_graph(admin, "expense_claim").grants == ()
    assert isinstance(_refusal(drafts.draft_graph, admin, "no_such_flow"), NotFound)
    # Another organization's draft is not this one's.
    assert drafts.draft_graph(globex.admin.actor, "expense_claim").grants != ()


def test_a_graph_of_another_kind_cannot_be_saved_as_this_kind(acme, globex):
    admin = acme.admin.actor
    leave = _leave(admin)
    assert drafts.save_draft(admin, "leave_request", leave, revision=0).revision == 1

    error = _refusal(drafts.save_draft, admin, "expense_claim", leave, revision=0)

    assert (error.code, error.params["kind"]) == ("graph_kind_mismatch", "leave_request")
    assert drafts.get_draft(admin, "expense_claim").revision == 0


def test_discarding_needs_the_current_revision(acme, globex):
    admin = acme.admin.actor
    for kind in ("expense_claim", "leave_request"):
        graph = drafts.get_draft(admin, kind).graph
        drafts.save_draft(admin, kind, graph, revision=0)
        drafts.save_draft(admin, kind, _relabelled(graph, "Edited"), revision=1)

    drafts.discard_draft(admin, "leave_request", revision=2)
    assert drafts.get_draft(admin, "leave_request").revision == 0

    error = _refusal(drafts.discard_draft, admin, "expense_claim", revision=1)
    assert (error.code, error.params) == ("stale_revision", {"current": 2})
    assert drafts.get_draft(admin, "expense_claim").revision == 2
    gone = _refusal(drafts.discard_draft, admin, "leave_request", revision=2)
    assert isinstance(gone, Conflict)
    assert gone.code == "draft_gone"


# --- publishing --------------------------------------------------------------------------


def test_publishing_an_invalid_draft_is_refused_with_every_violation_and_keeps_the_draft(
    acme, globex
):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", _granting(graph), revision=0)

    error = _refusal(publishing.publish_draft, admin, "expense_claim", revision=1)

    assert isinstance(error, validation.FlowInvalid)
    assert error.code == "flow_invalid"
    assert set(_codes(error.violations)) == {"gate_without_grant"}
    assert error.params == {"num": len(errors_in(error.violations))}
    assert drafts.get_draft(admin, "expense_claim").revision == 1
    assert [v.version for v in queries.list_versions(admin, "expense_claim")] == [1]

    fixed = drafts.save_draft(admin, "expense_claim", graph, revision=1)
    assert (
        publishing.publish_draft(admin, "expense_claim", revision=fixed.revision).view.version == 2
    )


def test_a_valid_draft_publishes_as_the_next_version_and_is_consumed(acme, globex):
    admin = acme.admin.actor
    graph = _relabelled(drafts.get_draft(admin, "expense_claim").graph, "Claims v2")
    drafts.save_draft(admin, "expense_claim", graph, revision=0)

    published = publishing.publish_draft(admin, "expense_claim", revision=1)

    assert (published.view.version, published.view.published_by) == (2, "Alice Admin")
    assert published.view.graph == graph.normalised()
    assert published.view.digest == graph_json.digest_of(graph)
    draft = drafts.get_draft(admin, "expense_claim")
    assert (draft.revision, draft.base_version) == (0, 2)
    versions = queries.list_versions(admin, "expense_claim")
    assert [(v.version, v.published_by) for v in versions] == [(2, "Alice Admin"), (1, None)]
    assert queries.get_version(admin, "expense_claim", 2).graph.labels["en"] == "Claims v2"
    assert queries.current_version(admin, "expense_claim").version == 2
    assert queries.get_version(admin, "expense_claim", 1).graph.labels["en"] == "Expense claim"
    # globex's flow is its own: still version 1, unchanged.
    assert queries.current_version(globex.admin.actor, "expense_claim").version == 1


def test_publishing_a_stale_revision_is_refused(acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", graph, revision=0)
    drafts.save_draft(admin, "expense_claim", _relabelled(graph, "Newer"), revision=1)

    error = _refusal(publishing.publish_draft, admin, "expense_claim", revision=1)

    assert (error.code, error.params) == ("stale_revision", {"current": 2})
    assert queries.current_version(admin, "expense_claim").version == 1
    assert publishing.publish_draft(admin, "expense_claim", revision=2).view.version == 2


def test_publishing_a_draft_that_is_gone_says_so(acme, globex):
    admin = acme.admin.actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    drafts.save_draft(admin, "expense_claim", graph, revision=0)
    assert publishing.publish_draft(admin, "expense_claim", revision=1).view.version == 2

    again = _refusal(publishing.publish_draft, admin, "expense_claim", revision=1)
    assert isinstance(again, Conflict)
    assert again.code == "draft_gone"
    assert queries.current_version(admin, "expense_claim").version == 2


def test_a_revision_or_version_no_one_was_ever_given_is_refused(acme, globex):
    admin = acme.admin.actor
    graph = _claim(admin)
    assert drafts.save_draft(admin, "expense_claim", graph, revision=0).revision == 1
    huge = 2**64  # beyond any column: the database could not even compare with it

    for call, args in (
        (drafts.save_draft, (admin, "expense_claim", graph)),
        (drafts.discard_draft, (admin, "expense_claim")),
    ):
        for revision in (huge, -1):
            assert _refusal(call, *args, revision=revision).code == "bad_request"
    assert _refusal(publishing.publish_draft, admin, "expense_claim", revision=huge).code == (
        "stale_revision"
    )
    for version in (huge, 0, -1):
        assert isinstance(_refusal(queries.get_version, admin, "expense_claim", version), NotFound)
        assert isinstance(
            _refusal(transfer.export_flow, admin, "expense_claim", version=version), NotFound
        )
    assert isinstance(_refusal(transfer.export_flow, admin, "bad\x00kind", version=1), NotFound)
    assert drafts.get_draft(admin, "expense_claim").revision == 1


# --- validation that needs the database --------------------------------------------------


def test_a_member_grantee_must_be_an_active_member_of_this_organization(acme, globex, make_member):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    leaving = make_member(acme.org, "Lea Leaving")
    accounts.deactivate_member(admin, leaving.member_id)
    leave = _leave(admin)

    ok = drafts.save_draft(
        admin, "leave_request", _granting(leave, _member_grant(bob.member_id)), revision=0
    )
    assert _codes(ok.violations) == []

    for stranger in (leaving, globex.admin):
        draft = drafts.save_draft(
            admin,
            "leave_request",
            _granting(leave, _member_grant(stranger.member_id)),
            revision=drafts.get_draft(admin, "leave_request").revision,
        )
        [violation] = errors_in(draft.violations)
        assert (violation.code, violation.path) == (
            "grantee_member_unknown",
            "grants[0].grantee.member",
        )
        assert violation.params == {"member": stranger.member_id}


def test_a_position_grantee_must_be_an_active_seat_of_this_organization(acme, globex):
    admin = acme.admin.actor
    cfo, old = _seat(admin, "CFO"), _seat(admin, "OLD")
    retire_position(admin, old.id)
    foreign = _seat(globex.admin.actor, "G-CFO")
    leave = _leave(admin)

    ok = drafts.save_draft(
        admin, "leave_request", _granting(leave, _position_grant(cfo.id)), revision=0
    )
    assert _codes(ok.violations) == []

    for seat in (old, foreign):
        draft = drafts.save_draft(
            admin,
            "leave_request",
            _granting(leave, _position_grant(seat.id)),
            revision=drafts.get_draft(admin, "leave_request").revision,
        )
        assert _codes(draft.violations) == ["grantee_position_unknown"]
        error = _refusal(publishing.publish_draft, admin, "leave_request", revision=draft.revision)
        assert isinstance(error, FlowInvalid)
        assert _codes(error.violations) == ["grantee_position_unknown"]


# --- published versions never change -----------------------------------------------------

TOUCH_DRAFT = "UPDATE flow_draft SET updated_at = updated_at"


@postgres_only
def test_the_app_role_may_not_update_or_delete_a_published_version(backend, acme, globex):
    if not backend.postgres:
        pytest.skip("privileges are PostgreSQL's")
    admin = acme.admin.actor
    drafts.save_draft(admin, "expense_claim", _claim(admin), revision=0)
    with unit_of_work(acme.org.id) as uow:  # the allowed case: a draft is mutable
        assert rows_changed(uow.session.execute(text(TOUCH_DRAFT))) == 1
        assert uow.session.scalar(text("SELECT count(*) FROM flow_version")) == len(SEEDED_KINDS)

    for statement in (
        "UPDATE flow_version SET digest = 'tampered'",
        "DELETE FROM flow_version",
    ):
        with pytest.raises(DBAPIError, match="permission denied"), unit_of_work(acme.org.id) as uow:
            uow.session.execute(text(statement))

    view = queries.get_version(acme.admin.actor, "expense_claim", 1)
    assert view.digest == graph_json.digest_of(view.graph)

    # Nor may it remove a whole organization: nothing it could do erases a tenant's history.
    with pytest.raises(DBAPIError, match="permission denied"), platform_work() as uow:
        uow.session.execute(
            text("DELETE FROM organization WHERE id = :org"), {"org": globex.org.id}
        )
    with unit_of_work(globex.org.id) as uow:
        count = text("SELECT count(*) FROM flow_version WHERE org_id = :org")
        assert uow.session.scalar(count, {"org": globex.org.id}) == len(SEEDED_KINDS)


@postgres_only
def test_the_trigger_refuses_changing_a_version_even_for_the_table_owner(backend):
    if not backend.postgres:
        pytest.skip("the owner role is PostgreSQL's")
    # The owner works in a connection of its own, which cannot see a test's uncommitted
    # rows: it makes its own organization and version, and rolls everything back.
    owner = create_engine(backend.owner_url)
    try:
        with owner.connect() as conn:
            outer = conn.begin()
            try:
                org_id = conn.scalar(
                    text(
                        "INSERT INTO organization (slug, name, base_currency, default_locale, created_at)"
                        " VALUES ('owner-trigger-test', 'Owner trigger', 'USD', 'en', now())"
                        " RETURNING id"
                    )
                )
                # Row-level security is forced, so even the owner must name the tenant.
                conn.execute(
                    text("SELECT set_config('app.current_org', :org, true)"), {"org": str(org_id)}
                )
                conn.execute(
                    text(
                        "INSERT INTO flow_version (org_id, kind, version, graph, digest, published_at)"
                        " VALUES (:org, 'expense_claim', 1, '{}', 'original', now())"
                    ),
                    {"org": org_id},
                )
                assert conn.scalar(text("SELECT digest FROM flow_version")) == "original"

                for statement, op in (
                    ("UPDATE flow_version SET digest = 'tampered'", "UPDATE"),
                    ("DELETE FROM flow_version", "DELETE"),
                ):
                    savepoint = conn.begin_nested()
                    with pytest.raises(
                        DBAPIError, match=f"flow_version is append-only: {op} refused"
                    ):
                        conn.execute(text(statement))
                    savepoint.rollback()

                assert conn.scalar(text("SELECT digest FROM flow_version")) == "original"

                # Nor can the owner remove the organization: its keys restrict, nothing
                # cascades into its history.
                savepoint = conn.begin_nested()
                with pytest.raises(DBAPIError, match="violates foreign key constraint"):
                    conn.execute(text("DELETE FROM organization WHERE id = :org"), {"org": org_id})
                savepoint.rollback()
                assert conn.scalar(text("SELECT count(*) FROM flow_version")) == 1
            finally:
                outer.rollback()
    finally:
        owner.dispose()


def test_on_sqlite_the_triggers_refuse_updating_or_deleting_a_version(backend, acme, globex):
    if backend.postgres:
        pytest.skip("PostgreSQL is covered by the privilege and owner tests")
    admin = acme.admin.actor
    drafts.save_draft(admin, "expense_claim", _claim(admin), revision=0)
    with unit_of_work(acme.org.id) as uow:  # the allowed case: a draft is mutable
        assert rows_changed(uow.session.execute(text(TOUCH_DRAFT))) == 1

    for statement, op in (
        ("UPDATE flow_version SET digest = 'tampered'", "UPDATE"),
        ("DELETE FROM flow_version", "DELETE"),
    ):
        with (
            pytest.raises(DBAPIError, match=f"flow_version is append-only: {op} refused"),
            unit_of_work(acme.org.id) as uow,
        ):
            uow.session.execute(text(statement))

    view = queries.get_version(acme.admin.actor, "expense_claim", 1)
    assert view.digest == graph_json.digest_of(view.graph)

    # Nor can a whole organization be removed: nothing cascades into its history.
    with pytest.raises(DBAPIError, match="FOREIGN KEY constraint failed"), platform_work() as uow:
        uow.session.execute(
            text("DELETE FROM organization WHERE id = :org"), {"org": globex.org.id}
        )
    with unit_of_work(globex.org.id) as uow:
        count = text("SELECT count(*) FROM flow_version WHERE org_id = :org")
        assert uow.session.scalar(count, {"org": globex.org.id}) == len(SEEDED_KINDS)


# --- the version cache -------------------------------------------------------------------


def test_a_loaded_version_is_served_from_the_cache_without_the_database(acme, globex, monkeypatch):
    admin = acme.admin.actor
    first = queries.get_version(admin, "expense_claim", 1)

    def no_database(actor):
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(queries, "unit_of_work_for", no_database)
    assert queries.get_version(admin, "expense_claim", 1) is first


def test_the_cache_never_hands_one_organization_anothers_version(acme, globex):
    admin, gus = acme.admin.actor, globex.admin.actor
    acme_v2 = _publish(admin, _relabelled(_leave(admin), "Acme leave"))
    assert queries.get_version(admin, "leave_request", 2) is acme_v2

    assert isinstance(_refusal(queries.get_version, gus, "leave_request", 2), NotFound)
    globex_v1 = queries.get_version(gus, "leave_request", 1)
    assert globex_v1.graph.labels["en"] == "Leave request"

    globex_v2 = _publish(gus, _relabelled(_leave(gus), "Globex leave"))
    assert queries.get_version(gus, "leave_request", 2).graph.labels["en"] == "Globex leave"
    assert queries.get_version(gus, "leave_request", 2) is globex_v2
    assert queries.get_version(admin, "leave_request", 2).graph.labels["en"] == "Acme leave"


# --- tenancy and access ------------------------------------------------------------------


def test_another_organization_never_sees_a_draft(acme, globex):
    admin, gus = acme.admin.actor, globex.admin.actor
    travel = replace(_leave(admin), kind="travel_request")
    transfer.import_draft(admin, graph_json.dumps(travel))
    drafts.save_draft(
        admin, "expense_claim", drafts.get_draft(admin, "expense_claim").graph, revision=0
    )
    assert drafts.get_draft(admin, "travel_request").revision == 1

    assert isinstance(_refusal(drafts.get_draft, gus, "travel_request"), NotFound)
    assert drafts.get_draft(gus, "expense_claim").revision == 0
    assert [f.kind for f in listing.list_flows(gus)] == sorted(SEEDED_KINDS)
    assert all(f.draft_revision is None for f in listing.list_flows(gus))
    # Naming acme's revision does not reach acme's draft.
    assert _refusal(drafts.discard_draft, gus, "travel_request", revision=1).code == "not_found"
    # Globex's own expense claim has no draft to publish; acme's draft is not reached.
    assert _refusal(publishing.publish_draft, gus, "expense_claim", revision=1).code == "draft_gone"
    theirs = drafts.get_draft(gus, "expense_claim").graph
    stale = _refusal(drafts.save_draft, gus, "expense_claim", theirs, revision=1)
    assert (stale.code, stale.params) == ("stale_revision", {"current": 0})
    assert drafts.get_draft(admin, "expense_claim").revision == 1
    assert drafts.get_draft(admin, "travel_request").revision == 1


def test_only_an_admin_may_list_edit_or_publish_flows(acme, globex, make_member):
    admin = acme.admin.actor
    mo = make_member(acme.org, "Mo Member").actor
    graph = drafts.get_draft(admin, "expense_claim").graph
    assert listing.list_flows(admin)
    assert drafts.save_draft(admin, "expense_claim", graph, revision=0).revision == 1

    for call, args, kwargs in (
        (listing.list_flows, (mo,), {}),
        (drafts.get_draft, (mo, "expense_claim"), {}),
        (drafts.save_draft, (mo, "expense_claim", graph), {"revision": 1}),
        (publishing.publish_draft, (mo, "expense_claim"), {"revision": 1}),
        (drafts.discard_draft, (mo, "expense_claim"), {"revision": 1}),
        (readiness.flow_readiness, (mo,), {}),
        (transfer.export_flow, (mo, "expense_claim"), {}),
    ):
        error = _refusal(call, *args, **kwargs)
        assert isinstance(error, Forbidden)
        assert error.code == "admin_required"
    assert drafts.get_draft(admin, "expense_claim").revision == 1
    # Documents are decided under a version, so any member may read one.
    assert queries.current_version(mo, "expense_claim").version == 1


# --- import and export -------------------------------------------------------------------


def test_an_exported_version_loads_back_into_the_same_graph(acme, globex):
    admin = acme.admin.actor
    for kind in SEEDED_KINDS:
        exported = transfer.export_flow(admin, kind, version=1).body
        assert graph_json.loads(exported) == queries.get_version(admin, kind, 1).graph
        assert json.loads(exported)["kind"] == kind


def test_exporting_without_a_version_gives_the_draft_else_the_current_version(acme, globex):
    admin = acme.admin.actor
    assert (
        graph_json.loads(transfer.export_flow(admin, "expense_claim").body).labels["en"]
        == "Expense claim"
    )

    graph = _relabelled(drafts.get_draft(admin, "expense_claim").graph, "Drafted")
    drafts.save_draft(admin, "expense_claim", graph, revision=0)

    assert (
        graph_json.loads(transfer.export_flow(admin, "expense_claim").body).labels["en"]
        == "Drafted"
    )
    assert isinstance(_refusal(transfer.export_flow, admin, "expense_claim", version=9), NotFound)


def test_importing_a_document_over_a_kind_saves_a_draft(acme, globex):
    admin = acme.admin.actor
    document = json.loads(transfer.export_flow(admin, "expense_claim", version=1).body)
    document["labels"]["en"] = "Imported claims"

    draft = transfer.import_draft(admin, json.dumps(document), kind="expense_claim")

    assert (draft.revision, draft.graph.labels["en"]) == (1, "Imported claims")
    again = transfer.import_draft(
        admin, json.dumps(document).encode(), kind="expense_claim", revision=1
    )
    assert again.revision == 2


def test_malformed_or_misshapen_imports_are_refused_naming_the_path_and_write_nothing(acme, globex):
    admin = acme.admin.actor
    document = json.loads(transfer.export_flow(admin, "expense_claim", version=1).body)
    assert transfer.import_draft(admin, json.dumps(document), kind="expense_claim").revision == 1
    drafts.discard_draft(admin, "expense_claim", revision=1)

    not_json = _refusal(
        transfer.import_draft, admin, '{"kind": "expense_claim",', kind="expense_claim"
    )
    assert isinstance(not_json, GraphFormatError)
    assert not_json.code == "graph_not_json"

    document["transitions"][3]["gate"] = 7
    wrong_shape = _refusal(transfer.import_draft, admin, json.dumps(document), kind="expense_claim")
    assert isinstance(wrong_shape, GraphFormatError)
    assert (wrong_shape.code, wrong_shape.path) == ("graph_wrong_type", "transitions[3].gate")

    binary = _refusal(transfer.import_draft, admin, b"\xff\xfe\x00garbage", kind="expense_claim")
    assert binary.code == "graph_not_utf8"
    deep = _refusal(transfer.import_draft, admin, "[" * 100_000 + "]" * 100_000)
    assert deep.code == "graph_too_deep"

    assert drafts.get_draft(admin, "expense_claim").revision == 0


def test_text_that_cannot_be_written_out_as_utf8_is_refused(acme, globex):
    admin = acme.admin.actor
    document = json.loads(transfer.export_flow(admin, "leave_request", version=1).body)
    document["labels"]["en"] = "Leave ✓"
    assert transfer.import_draft(admin, json.dumps(document)).revision == 1
    drafts.discard_draft(admin, "leave_request", revision=1)

    # Lone UTF-16 surrogates are valid JSON escapes; nothing could print or digest them.
    document["labels"]["en"] = "Leave \ud800"
    labelled = _refusal(transfer.import_draft, admin, json.dumps(document))
    document["labels"]["en"] = "Leave"
    document["kind"] = "\udfff"
    kind = _refusal(transfer.import_draft, admin, json.dumps(document))
    key = _refusal(transfer.import_draft, admin, '{"kind": "x", "states": [], "\\ud800": 1}')
    graph = replace(_leave(admin), labels=Labels({"en": "Leave \ud800"}))
    saved = _refusal(drafts.save_draft, admin, "leave_request", graph, revision=0)

    for error in (labelled, kind, key, saved):
        assert isinstance(error, GraphFormatError)
        assert error.code == "graph_not_utf8"
    assert drafts.get_draft(admin, "leave_request").revision == 0


def test_a_document_of_another_kind_cannot_be_imported_over_a_kind(acme, globex):
    admin = acme.admin.actor
    leave = transfer.export_flow(admin, "leave_request", version=1).body
    assert transfer.import_draft(admin, leave, kind="leave_request").revision == 1

    error = _refusal(transfer.import_draft, admin, leave, kind="expense_claim")

    assert (error.code, error.params["kind"], error.params["expected"]) == (
        "graph_kind_mismatch",
        "leave_request",
        "expense_claim",
    )
    assert drafts.get_draft(admin, "expense_claim").revision == 0


def test_importing_with_no_kind_starts_the_draft_of_the_kind_the_document_names(acme, globex):
    admin = acme.admin.actor
    claim = transfer.export_flow(admin, "expense_claim", version=1).body
    travel = graph_json.dumps(replace(_leave(admin), kind="travel_request"))

    assert transfer.import_draft(admin, claim).kind == "expense_claim"
    draft = transfer.import_draft(admin, travel)

    assert (draft.kind, draft.revision, draft.base_version) == ("travel_request", 1, None)
    [summary] = [f for f in listing.list_flows(admin) if f.kind == "travel_request"]
    assert (summary.current_version, summary.draft_revision) == (None, 1)
    assert queries.list_versions(admin, "travel_request") == []
    assert "travel_request" not in {f.kind for f in listing.list_flows(globex.admin.actor)}

    for document, kind in ((claim, "expense_claim"), (travel, "travel_request")):
        error = _refusal(transfer.import_draft, admin, document)
        assert (error.code, error.field, error.params) == ("draft_exists", "file", {"kind": kind})
        assert drafts.get_draft(admin, kind).revision == 1


def test_a_brand_new_kind_publishes_as_its_version_one(acme, globex):
    admin = acme.admin.actor
    transfer.import_draft(admin, graph_json.dumps(replace(_leave(admin), kind="travel_request")))

    published = publishing.publish_draft(admin, "travel_request", revision=1)

    assert (published.view.version, published.view.published_by) == (1, "Alice Admin")
    assert readiness.flow_readiness(admin) == []


def test_a_document_naming_a_badly_formed_kind_is_refused(acme, globex):
    admin = acme.admin.actor
    bad = graph_json.dumps(replace(_leave(admin), kind="Travel Request"))

    error = _refusal(transfer.import_draft, admin, bad)

    assert (error.code, error.field) == ("flow_kind_invalid", "file")
    assert [f.kind for f in listing.list_flows(admin)] == sorted(SEEDED_KINDS)


def test_a_kind_with_a_trailing_newline_cannot_become_a_second_invisible_flow(acme, globex):
    admin = acme.admin.actor
    travel = graph_json.dumps(replace(_leave(admin), kind="travel_request"))
    assert transfer.import_draft(admin, travel).kind == "travel_request"  # the allowed case

    for kind in ("expense_claim\n", "leave_request\r\n", "purchase_request "):
        twin = graph_json.dumps(replace(_leave(admin), kind=kind))
        error = _refusal(transfer.import_draft, admin, twin)
        assert (error.code, error.field) == ("flow_kind_invalid", "file")
    assert [f.kind for f in listing.list_flows(admin)] == sorted([*SEEDED_KINDS, "travel_request"])


# --- readiness ---------------------------------------------------------------------------


def test_a_fresh_organization_with_an_admin_is_ready(acme, globex):
    assert readiness.flow_readiness(acme.admin.actor) == []
    assert readiness.flow_readiness(globex.admin.actor) == []


def test_a_grant_naming_a_member_who_left_is_flagged(acme, globex, make_member):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    _publish(admin, _granting(_leave(admin), _member_grant(bob.member_id)))
    assert readiness.flow_readiness(admin) == []

    accounts.deactivate_member(admin, bob.member_id)

    [warning] = readiness.flow_readiness(admin)
    assert (warning.kind, warning.version, warning.grant, warning.state) == (
        "leave_request",
        2,
        0,
        "approved",
    )
    assert (warning.code, warning.params) == ("readiness_member_inactive", {"name": "Bob Builder"})
    assert readiness.flow_readiness(globex.admin.actor) == []


def test_a_grant_naming_a_retired_seat_is_flagged(acme, globex):
    admin = acme.admin.actor
    cfo = _seat(admin, "CFO")
    _publish(admin, _granting(_leave(admin), _position_grant(cfo.id)))
    assert readiness.flow_readiness(admin) == []  # vacant, but it escalates

    retire_position(admin, cfo.id)

    [warning] = readiness.flow_readiness(admin)
    assert (warning.code, warning.params) == (
        "readiness_position_retired",
        {"position": "CFO — CFO seat"},
    )


def test_a_vacant_seat_that_refuses_to_escalate_is_flagged_while_nobody_holds_it(
    acme, globex, make_member
):
    clock.freeze(datetime(2026, 7, 1, 9, 0, tzinfo=UTC))  # the holding ended yesterday
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    cfo = _seat(admin, "CFO")
    orgchart.assign_position(
        admin,
        member_id=bob.member_id,
        position_id=cfo.id,
        valid_from=date(2026, 1, 1),
        valid_to=date(2026, 6, 30),
    )
    _publish(admin, _granting(_leave(admin), _position_grant(cfo.id, OnVacancy.REFUSE)))
    assert readiness.flow_readiness(admin, as_of=date(2026, 3, 16)) == []

    [warning] = readiness.flow_readiness(admin)  # as of today
    assert (warning.code, warning.params) == (
        "readiness_position_vacant",
        {"position": "CFO — CFO seat"},
    )


def test_a_role_grant_nobody_holds_is_flagged(acme, globex, make_member):
    admin = acme.admin.actor
    audra = make_member(acme.org, "Audra Auditor", roles=(Role.AUDITOR,))
    auditors = Grant(state="approved", grantee=Grantee(kind=GranteeKind.ROLE, role=Role.AUDITOR))
    _publish(admin, _granting(_leave(admin), auditors))
    assert readiness.flow_readiness(admin) == []

    accounts.deactivate_member(admin, audra.member_id)

    [warning] = readiness.flow_readiness(admin)
    assert (warning.code, warning.params) == ("readiness_role_empty", {"role": "auditor"})


def test_readiness_reads_only_the_current_version(acme, globex, make_member):
    admin = acme.admin.actor
    bob = make_member(acme.org, "Bob Builder")
    _publish(admin, _granting(_leave(admin), _member_grant(bob.member_id)))
    accounts.deactivate_member(admin, bob.member_id)
    assert [w.code for w in readiness.flow_readiness(admin)] == ["readiness_member_inactive"]

    _publish(admin, queries.get_version(admin, "leave_request", 1).graph)  # back to the seeded

    assert readiness.flow_readiness(admin) == []
