"""Rule 0 for the grants: a scope, a grantee fully and only named, a floor in the base
currency and written no finer than it, a known vacancy policy and escalation bound."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal

from portal.domain.graph import Grantee, GranteeKind, Graph, OnVacancy
from portal.domain.validate.violations import Params, Violation, violation

LEVELS_UP_RANGE = range(1, 10)
ESCALATION_BOUND_RANGE = range(1, 11)
# The one reference each grantee kind needs (and no other).
_GRANTEE_REFERENCE = {
    GranteeKind.MEMBER: "member",
    GranteeKind.POSITION: "position",
    GranteeKind.LEVELS_UP: "levels",
    GranteeKind.ROLE: "role",
    GranteeKind.UNIT_HEAD: "walk_up",
    GranteeKind.SUPERIOR: None,
}
# The references an admin chooses after the kind (walk_up has a default).
_CHOSEN = ("member", "position", "levels", "role")
# Looked up once per grant on every change: a set, and a Decimal zero to compare floors
# with (a Decimal compared with an int converts the int first).
_ON_VACANCY = frozenset(OnVacancy.ALL)
# The fields a grantee is judged by: all of them (a test holds this to ``Grantee``).
GRANTEE_FIELDS = ("kind", "member", "position", "levels", "role", "walk_up")
_ZERO = Decimal(0)


def check(
    graph: Graph, known: set[str], base_currency: str, roles: Collection[str], out: list[Violation]
) -> None:
    """Every rule-0 violation of the grants, given the state keys they may name."""
    # A flow names the same few deciders on many states: each distinct grantee is judged
    # once per run, recognised by its fields.
    judged: dict[tuple[object, ...], list[tuple[str, str, Params]]] = {}
    for i, gr in enumerate(graph.grants):
        if gr.all_states == (gr.state is not None):
            out.append(_at_grant(i, "grant_scope_invalid", ".state"))
        elif gr.state is not None and gr.state not in known:
            out.append(_at_grant(i, "grant_state_unknown", ".state", state=gr.state[:64]))
        grantee = gr.grantee
        # Every field of a grantee (``GRANTEE_FIELDS``): equal grantees give equal tuples,
        # which hash and compare without a call into the dataclass's own methods.
        held = (
            grantee.kind,
            grantee.member,
            grantee.position,
            grantee.levels,
            grantee.role,
            grantee.walk_up,
        )
        problems = judged.get(held)
        if problems is None:
            problems = judged[held] = _grantee(grantee, roles)
        for code, where, params in problems:
            out.append(_at_grant(i, code, f".grantee{where}", **params))
        if gr.min_amount is not None:
            if gr.min_amount < _ZERO:
                amount = str(gr.min_amount)
                out.append(_at_grant(i, "floor_negative", ".min_amount", amount=amount))
            if gr.currency is None:  # an amount with no currency: which one is meant?
                out.append(_at_grant(i, "floor_currency_missing", ".currency", base=base_currency))
            elif gr.currency != base_currency:
                out.append(
                    _at_grant(
                        i,
                        "floor_currency_mismatch",
                        ".currency",
                        currency=(gr.currency or "")[:8],
                        base=base_currency,
                    )
                )
        elif gr.currency is not None:
            out.append(_at_grant(i, "floor_currency_without_amount", ".currency"))
        if gr.on_vacancy not in _ON_VACANCY:
            value = str(gr.on_vacancy)[:64]
            out.append(_at_grant(i, "on_vacancy_unknown", ".on_vacancy", value=value))
        if gr.max_escalation_levels not in ESCALATION_BOUND_RANGE:
            out.append(
                _at_grant(
                    i,
                    "escalation_bound_invalid",
                    ".max_escalation_levels",
                    low=ESCALATION_BOUND_RANGE.start,
                    high=ESCALATION_BOUND_RANGE.stop - 1,
                )
            )


def _grantee(grantee: Grantee, roles: Collection[str]) -> list[tuple[str, str, Params]]:
    """What is wrong with a grantee: codes, where in the grantee, and parameters."""
    if not grantee.kind:  # a grant just added: who decides is still to be chosen
        return [("grantee_kind_missing", ".kind", {})]
    if grantee.kind not in _GRANTEE_REFERENCE:
        return [("grantee_kind_unknown", ".kind", {"kind": grantee.kind[:64]})]
    wanted = _GRANTEE_REFERENCE[grantee.kind]
    given = {
        name
        for name, value in (
            ("member", grantee.member),
            ("position", grantee.position),
            ("levels", grantee.levels),
            ("role", grantee.role),
            ("walk_up", grantee.walk_up),
        )
        if value is not None
    }
    if wanted in _CHOSEN and not given:  # the kind is picked, whom it names not yet
        return [(f"grantee_{wanted}_missing", f".{wanted}", {})]
    if given != ({wanted} if wanted else set()):
        return [("grantee_ref_invalid", "", {"kind": grantee.kind})]
    if grantee.kind == GranteeKind.LEVELS_UP and grantee.levels not in LEVELS_UP_RANGE:
        bounds = {"low": LEVELS_UP_RANGE.start, "high": LEVELS_UP_RANGE.stop - 1}
        return [("levels_up_invalid", ".levels", bounds)]
    if grantee.kind == GranteeKind.ROLE and grantee.role not in roles:
        return [("grantee_role_unknown", ".role", {"role": str(grantee.role)[:64]})]
    return []


def _at_grant(i: int, code: str, where: str, /, **params: str | int) -> Violation:
    return violation(code, {"grant": i}, f"grants[{i}]{where}", **params)


def floor_precision(graph: Graph, places: int) -> list[Violation]:
    """Floors written with more decimals than the base currency has (``places``: 2 for
    MYR, 0 for JPY): refused, never rounded, since what routes is what was typed."""
    out: list[Violation] = []
    cent = Decimal(1).scaleb(-places)
    for i, gr in enumerate(graph.grants):
        amount = gr.min_amount
        # By value: 1000.500 is 1000.50 written long, 1000.005 is not a ringgit amount.
        if amount is not None and amount.is_finite() and amount != amount.quantize(cent):
            where = f"grants[{i}].min_amount"
            out.append(
                violation(
                    "floor_too_precise", {"grant": i}, where, amount=str(amount), places=places
                )
            )
    return out
