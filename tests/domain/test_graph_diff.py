"""What a draft changes against the version it replaces: the publish confirmation's
summary. Layout is not a change; a renamed label, a new state or a dropped arrow is."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from portal.domain.graph import Grant, Grantee, GranteeKind, StateRole
from portal.domain.graph_diff import Changes, diff
from portal.domain.labels import Labels
from portal.flows.seeded import leave_request

LEAVE = leave_request("MYR")


def test_an_unchanged_graph_and_a_moved_state_are_no_change():
    assert not diff(LEAVE, LEAVE).any
    moved = replace(
        LEAVE,
        states=tuple(replace(s, x=s.x + 40, y=s.y + 10) for s in LEAVE.states),
        transitions=tuple(replace(t, vertices=((1, 2),)) for t in LEAVE.transitions),
    )
    assert not diff(LEAVE, moved).any


def test_added_removed_and_changed_states_and_transitions_are_named():
    first = LEAVE.states[1]
    relabelled = replace(first, labels=Labels({"en": "Waiting for the manager"}))
    extra = replace(
        first, key="hr_check", labels=Labels({"en": "HR check"}), role=StateRole.PENDING
    )
    dropped = LEAVE.transitions[-1]
    after = replace(
        LEAVE,
        states=(LEAVE.states[0], relabelled, *LEAVE.states[2:], extra),
        transitions=LEAVE.transitions[:-1],
    )

    changes = diff(LEAVE, after)

    assert changes.states == Changes(added=("hr_check",), changed=(first.key,))
    assert changes.transitions == Changes(removed=(f"{dropped.from_state}.{dropped.key}",))
    assert changes.any and not changes.flow_changed


def test_an_edited_grant_reads_as_one_removed_and_one_added():
    grant = LEAVE.grants[0]
    raised = replace(grant, min_amount=Decimal("500"), currency="MYR")
    extra = Grant(Grantee(GranteeKind.ROLE, role="admin"), state=grant.state)

    changes = diff(LEAVE, replace(LEAVE, grants=(raised, extra)))

    assert len(changes.grants.added) == 2 and len(changes.grants.removed) == 1


def test_against_no_version_everything_is_new():
    changes = diff(None, LEAVE)
    assert changes.flow_changed
    assert changes.states.added == tuple(sorted(s.key for s in LEAVE.states))
    assert changes.states.removed == changes.states.changed == ()


def test_grants_are_compared_by_what_they_say_in_the_graphs_order():
    grant = LEAVE.grants[0]
    raised = replace(grant, min_amount=Decimal("10000.00"), currency="MYR", on_vacancy="refuse")
    same_again = replace(grant)  # equal in every part: no change

    changes = diff(LEAVE, replace(LEAVE, grants=(same_again, raised)))

    assert changes.grants.added == (raised,)
    assert changes.grants.removed == ()
    assert diff(LEAVE, replace(LEAVE, grants=(raised,))).grants.removed == (grant,)
    # Counted, not just compared: a second identical grant is one added (and one removed).
    twice = diff(LEAVE, replace(LEAVE, grants=(grant, grant))).grants
    assert (twice.added, twice.removed) == ((grant,), ())
    assert diff(replace(LEAVE, grants=(grant, grant)), LEAVE).grants.removed == (grant,)


def test_offering_the_actions_in_another_order_is_a_change_renumbering_them_is_not():
    step = LEAVE.states[1].key
    exits = [t for t in LEAVE.transitions if t.from_state == step]
    assert len(exits) >= 2
    others = [t for t in LEAVE.transitions if t.from_state != step]
    numbered = replace(
        LEAVE, transitions=(*others, *(replace(t, order=n + 1) for n, t in enumerate(exits)))
    )
    assert not diff(LEAVE, numbered).any

    swapped = replace(
        LEAVE,
        transitions=(
            *others,
            replace(exits[0], order=2),
            replace(exits[1], order=1),
            *(replace(t, order=n + 3) for n, t in enumerate(exits[2:])),
        ),
    )
    changed = diff(LEAVE, swapped).transitions.changed
    assert {f"{step}.{exits[0].key}", f"{step}.{exits[1].key}"} <= set(changed)
