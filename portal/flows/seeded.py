"""The flows every new organization starts with, published as version 1.

Their grants name only what every organization has — the requester's superior, the
head of the requester's unit, and the organization's admins — so they validate
everywhere; the readiness check tells an admin what their chart still lacks.
Floors are in the organization's base currency, so the graphs are built per currency.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from portal.domain.actor import Role
from portal.domain.graph import (
    BreachAction,
    Choice,
    CommentPolicy,
    Deadline,
    DocumentField,
    FieldType,
    Gate,
    Grant,
    Grantee,
    GranteeKind,
    Graph,
    Labels,
    PostingOrder,
    State,
    StateRole,
    Transition,
    TransitionGuard,
)

EXPENSE_CLAIM = "expense_claim"
PURCHASE_REQUEST = "purchase_request"
LEAVE_REQUEST = "leave_request"
SEEDED_KINDS = (EXPENSE_CLAIM, PURCHASE_REQUEST, LEAVE_REQUEST)

# Purchase requests from this amount up are the unit head's to approve, not the superior's.
PURCHASE_UNIT_HEAD_FLOOR = Decimal("10000.00")


def _l(en: str, zh: str, ms: str) -> Labels:
    return Labels({"en": en, "zh": zh, "ms": ms})


def _state(key: str, labels: Labels, role: str, x: int, y: int, **kw: object) -> State:
    return State(key=key, labels=labels, role=role, x=x, y=y, **kw)  # type: ignore[arg-type]


def _go(
    key: str, source: str, target: str, gate: str, labels: Labels, order: int, **kw: object
) -> Transition:
    return Transition(
        key=key,
        from_state=source,
        to_state=target,
        gate=gate,
        labels=labels,
        order=order,
        **kw,  # type: ignore[arg-type]
    )


def _with_comment(t: Transition, *, reverses: bool = False) -> Transition:
    return replace(t, comment=CommentPolicy.REQUIRED, reverses=reverses)


def _grant(state: str, kind: str, **grantee: object) -> Grant:
    return Grant(state=state, grantee=Grantee(kind=kind, **grantee))  # type: ignore[arg-type]


_REJECT = _l("Reject", "拒绝", "Tolak")
_WITHDRAW = _l("Withdraw", "撤回", "Tarik balik")
_SUBMIT = _l("Submit", "提交", "Hantar")
_APPROVE = _l("Approve", "批准", "Luluskan")
_POSITIVE_AMOUNT = "document.amount > 0"


def expense_claim(base_currency: str) -> Graph:
    """draft → pending_review → reviewed → approved → category_verified (accrual) →
    completed (payout, "Paid") → received; a rejection from any step before payment
    (reversing the accrual once booked), rework from rejected, withdrawal before the
    accrual, and disputes after payment that are dismissed or upheld (upholding
    reverses). A dispute never returns to completed: that would pay twice."""
    del base_currency  # no floors: every claim takes the same path
    states = (
        _state("draft", _l("Draft", "草稿", "Draf"), StateRole.DRAFT, 40, 200),
        _state(
            "pending_review",
            _l("Pending review", "待审核", "Menunggu semakan"),
            StateRole.PENDING,
            240,
            200,
            deadline=Deadline(after="5d", on_breach=BreachAction.REMIND),
        ),
        _state("reviewed", _l("Reviewed", "已审核", "Disemak"), StateRole.PENDING, 440, 200),
        _state("approved", _l("Approved", "已批准", "Diluluskan"), StateRole.PENDING, 640, 200),
        _state(
            "category_verified",
            _l("Category verified", "类别已核实", "Kategori disahkan"),
            StateRole.ACCRUAL,
            840,
            200,
        ),
        _state("completed", _l("Paid", "已付款", "Dibayar"), StateRole.PAYOUT, 1040, 200),
        _state(
            "received",
            _l("Received", "已收款", "Diterima"),
            StateRole.ACKNOWLEDGED,
            1240,
            200,
            terminal=True,
        ),
        _state("rejected", _l("Rejected", "已拒绝", "Ditolak"), StateRole.REJECTED, 540, 420),
        _state(
            "cancelled",
            _l("Withdrawn", "已撤回", "Ditarik balik"),
            StateRole.CANCELLED,
            240,
            420,
            terminal=True,
        ),
        _state(
            "disputed",
            _l("Disputed", "有争议", "Dipertikaikan"),
            StateRole.DISPUTE,
            # Below the line, beside Rejected: "uphold" then crosses no other state.
            1140,
            420,
        ),
    )
    submit = _go(
        "submit",
        "draft",
        "pending_review",
        Gate.REQUESTER,
        _SUBMIT,
        1,
        guard=TransitionGuard(
            _POSITIVE_AMOUNT,
            _l(
                "An expense claim needs an amount above zero.",
                "费用报销的金额必须大于零。",
                "Tuntutan perbelanjaan memerlukan amaun melebihi sifar.",
            ),
        ),
    )
    transitions = (
        submit,
        _go(
            "review",
            "pending_review",
            "reviewed",
            Gate.TARGET,
            _l("Mark reviewed", "标记为已审核", "Tandakan sebagai disemak"),
            1,
        ),
        _go("approve", "reviewed", "approved", Gate.TARGET, _APPROVE, 1),
        _go(
            "verify_category",
            "approved",
            "category_verified",
            Gate.TARGET,
            _l("Verify category", "核实类别", "Sahkan kategori"),
            1,
        ),
        _go(
            "pay",
            "category_verified",
            "completed",
            Gate.TARGET,
            _l("Mark paid", "标记为已付款", "Tandakan sebagai dibayar"),
            1,
        ),
        _go(
            "acknowledge",
            "completed",
            "received",
            Gate.REQUESTER,
            _l("Confirm receipt", "确认收款", "Sahkan penerimaan"),
            1,
        ),
        *(
            _with_comment(_go("reject", step, "rejected", Gate.ADVANCE, _REJECT, 2))
            for step in ("pending_review", "reviewed", "approved")
        ),
        _with_comment(
            _go("reject", "category_verified", "rejected", Gate.ADVANCE, _REJECT, 2),
            reverses=True,
        ),
        *(
            _with_comment(_go("withdraw", step, "cancelled", Gate.REQUESTER, _WITHDRAW, 3))
            for step in ("pending_review", "reviewed", "approved", "rejected")
        ),
        _go("revise", "rejected", "draft", Gate.REQUESTER, _l("Revise", "修改", "Semak semula"), 1),
        *(
            _with_comment(
                _go(
                    "dispute",
                    step,
                    "disputed",
                    Gate.REQUESTER,
                    _l("Raise dispute", "提出争议", "Bangkitkan pertikaian"),
                    2,
                )
            )
            for step in ("completed", "received")
        ),
        _with_comment(
            _go(
                "dismiss",
                "disputed",
                "received",
                Gate.SOURCE,
                _l("Dismiss dispute", "驳回争议", "Tolak pertikaian"),
                1,
            )
        ),
        _with_comment(
            _go(
                "uphold",
                "disputed",
                "rejected",
                Gate.SOURCE,
                _l("Uphold dispute", "支持争议", "Sokong pertikaian"),
                2,
            ),
            reverses=True,
        ),
    )
    grants = (
        _grant("reviewed", GranteeKind.SUPERIOR),
        _grant("approved", GranteeKind.UNIT_HEAD, walk_up=True),
        _grant("category_verified", GranteeKind.ROLE, role=Role.ADMIN),
        _grant("completed", GranteeKind.ROLE, role=Role.ADMIN),
        _grant("disputed", GranteeKind.ROLE, role=Role.ADMIN),
    )
    fields = (
        DocumentField(
            key="category",
            type=FieldType.CHOICE,
            labels=_l("Category", "类别", "Kategori"),
            required=True,
            choices=(
                Choice("travel", _l("Travel", "差旅", "Perjalanan")),
                Choice("meals", _l("Meals", "餐饮", "Makan")),
                Choice("lodging", _l("Lodging", "住宿", "Penginapan")),
                Choice("supplies", _l("Office supplies", "办公用品", "Bekalan pejabat")),
                Choice("other", _l("Other", "其他", "Lain-lain")),
            ),
        ),
        DocumentField(
            key="expense_date",
            type=FieldType.DATE,
            labels=_l("Date of expense", "费用日期", "Tarikh perbelanjaan"),
            required=True,
        ),
        DocumentField(
            key="receipt_number",
            type=FieldType.TEXT,
            labels=_l("Receipt number", "收据编号", "Nombor resit"),
        ),
    )
    return Graph(
        kind=EXPENSE_CLAIM,
        labels=_l("Expense claim", "费用报销", "Tuntutan perbelanjaan"),
        posting_order=PostingOrder.ACCRUAL_FIRST,
        states=states,
        transitions=transitions,
        grants=grants,
        fields=fields,
    ).normalised()


def _single_step(
    *,
    kind: str,
    labels: Labels,
    step: str,
    step_labels: Labels,
    deadline: Deadline,
    submit_guard: TransitionGuard,
    grants: tuple[Grant, ...],
    fields: tuple[DocumentField, ...],
) -> Graph:
    """draft → step → approved | rejected (with a comment), or withdrawn by the requester:
    the shape of every one-decision request."""
    states = (
        _state("draft", _l("Draft", "草稿", "Draf"), StateRole.DRAFT, 40, 200),
        _state(step, step_labels, StateRole.PENDING, 280, 200, deadline=deadline),
        _state(
            "approved",
            _l("Approved", "已批准", "Diluluskan"),
            StateRole.CUSTOM,
            520,
            120,
            terminal=True,
        ),
        _state(
            "rejected",
            _l("Rejected", "已拒绝", "Ditolak"),
            StateRole.REJECTED,
            520,
            280,
            terminal=True,
        ),
        _state(
            "cancelled",
            _l("Withdrawn", "已撤回", "Ditarik balik"),
            StateRole.CANCELLED,
            280,
            400,
            terminal=True,
        ),
    )
    transitions = (
        _go("submit", "draft", step, Gate.REQUESTER, _SUBMIT, 1, guard=submit_guard),
        _go("approve", step, "approved", Gate.TARGET, _APPROVE, 1),
        _with_comment(_go("reject", step, "rejected", Gate.ADVANCE, _REJECT, 2)),
        _with_comment(_go("withdraw", step, "cancelled", Gate.REQUESTER, _WITHDRAW, 3)),
    )
    return Graph(
        kind=kind,
        labels=labels,
        posting_order=PostingOrder.ACCRUAL_FIRST,
        states=states,
        transitions=transitions,
        grants=grants,
        fields=fields,
    ).normalised()


def purchase_request(base_currency: str) -> Graph:
    """draft → submitted → approved | rejected, or withdrawn. The superior approves;
    from PURCHASE_UNIT_HEAD_FLOOR up only the unit head does. Nobody deciding within
    48 hours escalates the request one seat up."""
    return _single_step(
        kind=PURCHASE_REQUEST,
        labels=_l("Purchase request", "采购申请", "Permohonan pembelian"),
        step="submitted",
        step_labels=_l("Submitted", "已提交", "Dihantar"),
        deadline=Deadline(after="48h", on_breach=BreachAction.ESCALATE_UP),
        submit_guard=TransitionGuard(
            _POSITIVE_AMOUNT,
            _l(
                "A purchase request needs an amount above zero.",
                "采购申请的金额必须大于零。",
                "Permohonan pembelian memerlukan amaun melebihi sifar.",
            ),
        ),
        grants=(
            Grant(
                state="approved",
                grantee=Grantee(kind=GranteeKind.SUPERIOR),
                min_amount=Decimal("0.00"),
                currency=base_currency,
            ),
            Grant(
                state="approved",
                grantee=Grantee(kind=GranteeKind.UNIT_HEAD, walk_up=True),
                min_amount=PURCHASE_UNIT_HEAD_FLOOR,
                currency=base_currency,
            ),
        ),
        fields=(
            DocumentField(
                key="supplier",
                type=FieldType.TEXT,
                labels=_l("Supplier", "供应商", "Pembekal"),
                required=True,
            ),
            DocumentField(
                key="category",
                type=FieldType.CHOICE,
                labels=_l("Category", "类别", "Kategori"),
                required=True,
                choices=(
                    Choice("goods", _l("Goods", "货物", "Barangan")),
                    Choice("services", _l("Services", "服务", "Perkhidmatan")),
                    Choice("software", _l("Software", "软件", "Perisian")),
                ),
            ),
            DocumentField(
                key="needed_by",
                type=FieldType.DATE,
                labels=_l("Needed by", "需要日期", "Diperlukan sebelum"),
            ),
        ),
    )


def leave_request(base_currency: str) -> Graph:
    """draft → manager_review → approved | rejected (with a comment), or withdrawn.
    The requester's superior decides; a reminder goes out after three days."""
    del base_currency  # leave carries no money
    return _single_step(
        kind=LEAVE_REQUEST,
        labels=_l("Leave request", "请假申请", "Permohonan cuti"),
        step="manager_review",
        step_labels=_l("Manager review", "经理审核", "Semakan pengurus"),
        deadline=Deadline(after="3d", on_breach=BreachAction.REMIND),
        submit_guard=TransitionGuard(
            "document.fields.last_day >= document.fields.first_day",
            _l(
                "The last day of leave cannot be before the first.",
                "休假的最后一天不能早于第一天。",
                "Hari terakhir cuti tidak boleh sebelum hari pertama.",
            ),
        ),
        grants=(_grant("approved", GranteeKind.SUPERIOR),),
        fields=(
            DocumentField(
                key="leave_type",
                type=FieldType.CHOICE,
                labels=_l("Leave type", "假期类型", "Jenis cuti"),
                required=True,
                choices=(
                    Choice("annual", _l("Annual leave", "年假", "Cuti tahunan")),
                    Choice("sick", _l("Sick leave", "病假", "Cuti sakit")),
                    Choice("unpaid", _l("Unpaid leave", "无薪假", "Cuti tanpa gaji")),
                ),
            ),
            DocumentField(
                key="first_day",
                type=FieldType.DATE,
                labels=_l("First day", "第一天", "Hari pertama"),
                required=True,
            ),
            DocumentField(
                key="last_day",
                type=FieldType.DATE,
                labels=_l("Last day", "最后一天", "Hari terakhir"),
                required=True,
            ),
        ),
    )


def seeded_graphs(base_currency: str) -> list[Graph]:
    """Every graph a new organization gets, in the order they are listed."""
    return [
        expense_claim(base_currency),
        purchase_request(base_currency),
        leave_request(base_currency),
    ]
