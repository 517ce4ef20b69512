"""The seeded expense claim: review, approval, the category check that books the
accrual, payment, receipt — and rejections, rework, withdrawal and disputes."""

from __future__ import annotations

from portal.domain.actor import Role
from portal.domain.graph import (
    BreachAction,
    Choice,
    Deadline,
    DocumentField,
    FieldType,
    Gate,
    GranteeKind,
    Graph,
    PostingOrder,
    StateRole,
    TransitionGuard,
)
from portal.flows.seeded.kinds import EXPENSE_CLAIM
from portal.flows.seeded.parts import (
    APPROVE,
    POSITIVE_AMOUNT,
    REJECT,
    SUBMIT,
    WITHDRAW,
    go,
    grant,
    labels,
    state,
    with_comment,
)


def expense_claim(base_currency: str) -> Graph:
    """draft → pending_review → reviewed → approved → category_verified (accrual) →
    completed (payout, "Paid") → received; a rejection from any step before payment
    (reversing the accrual once booked), rework from rejected, withdrawal before the
    accrual, and disputes after payment that are dismissed or upheld (upholding
    reverses). A dispute never returns to completed: that would pay twice.

    Exclusive approval is on: review, approval, the category check that commits the
    money and payment are four different people (the requester's superior who also
    heads their unit reviews or approves, never both; one admin commits, another pays)."""
    del base_currency  # no floors: every claim takes the same path
    states = (
        state("draft", labels("Draft", "草稿", "Draf"), StateRole.DRAFT, 40, 200),
        state(
            "pending_review",
            labels("Pending review", "待审核", "Menunggu semakan"),
            StateRole.PENDING,
            240,
            200,
            deadline=Deadline(after="5d", on_breach=BreachAction.REMIND),
        ),
        state("reviewed", labels("Reviewed", "已审核", "Disemak"), StateRole.PENDING, 440, 200),
        state("approved", labels("Approved", "已批准", "Diluluskan"), StateRole.PENDING, 640, 200),
        state(
            "category_verified",
            labels("Category verified", "类别已核实", "Kategori disahkan"),
            StateRole.ACCRUAL,
            840,
            200,
        ),
        state("completed", labels("Paid", "已付款", "Dibayar"), StateRole.PAYOUT, 1040, 200),
        state(
            "received",
            labels("Received", "已收款", "Diterima"),
            StateRole.ACKNOWLEDGED,
            1240,
            200,
            terminal=True,
        ),
        state("rejected", labels("Rejected", "已拒绝", "Ditolak"), StateRole.REJECTED, 540, 420),
        state(
            "cancelled",
            labels("Withdrawn", "已撤回", "Ditarik balik"),
            StateRole.CANCELLED,
            240,
            420,
            terminal=True,
        ),
        state(
            "disputed",
            labels("Disputed", "有争议", "Dipertikaikan"),
            StateRole.DISPUTE,
            # Below the line, beside Rejected: "uphold" then crosses no other state.
            1140,
            420,
        ),
    )
    submit = go(
        "submit",
        "draft",
        "pending_review",
        Gate.REQUESTER,
        SUBMIT,
        1,
        guard=TransitionGuard(
            POSITIVE_AMOUNT,
            labels(
                "An expense claim needs an amount above zero.",
                "费用报销的金额必须大于零。",
                "Tuntutan perbelanjaan memerlukan amaun melebihi sifar.",
            ),
        ),
    )
    transitions = (
        submit,
        go(
            "review",
            "pending_review",
            "reviewed",
            Gate.TARGET,
            labels("Mark reviewed", "标记为已审核", "Tandakan sebagai disemak"),
            1,
        ),
        go("approve", "reviewed", "approved", Gate.TARGET, APPROVE, 1),
        go(
            "verify_category",
            "approved",
            "category_verified",
            Gate.TARGET,
            labels("Verify category", "核实类别", "Sahkan kategori"),
            1,
        ),
        go(
            "pay",
            "category_verified",
            "completed",
            Gate.TARGET,
            labels("Mark paid", "标记为已付款", "Tandakan sebagai dibayar"),
            1,
        ),
        go(
            "acknowledge",
            "completed",
            "received",
            Gate.REQUESTER,
            labels("Confirm receipt", "确认收款", "Sahkan penerimaan"),
            1,
        ),
        *(
            with_comment(go("reject", step, "rejected", Gate.ADVANCE, REJECT, 2))
            for step in ("pending_review", "reviewed", "approved")
        ),
        with_comment(
            go("reject", "category_verified", "rejected", Gate.ADVANCE, REJECT, 2),
            reverses=True,
        ),
        *(
            with_comment(go("withdraw", step, "cancelled", Gate.REQUESTER, WITHDRAW, 3))
            for step in ("pending_review", "reviewed", "approved", "rejected")
        ),
        go(
            "revise",
            "rejected",
            "draft",
            Gate.REQUESTER,
            labels("Revise", "修改", "Semak semula"),
            1,
        ),
        *(
            with_comment(
                go(
                    "dispute",
                    step,
                    "disputed",
                    Gate.REQUESTER,
                    labels("Raise dispute", "提出争议", "Bangkitkan pertikaian"),
                    2,
                )
            )
            for step in ("completed", "received")
        ),
        with_comment(
            go(
                "dismiss",
                "disputed",
                "received",
                Gate.SOURCE,
                labels("Dismiss dispute", "驳回争议", "Tolak pertikaian"),
                1,
            )
        ),
        with_comment(
            go(
                "uphold",
                "disputed",
                "rejected",
                Gate.SOURCE,
                labels("Uphold dispute", "支持争议", "Sokong pertikaian"),
                2,
            ),
            reverses=True,
        ),
    )
    grants = (
        grant("reviewed", GranteeKind.SUPERIOR),
        grant("approved", GranteeKind.UNIT_HEAD, walk_up=True),
        grant("category_verified", GranteeKind.ROLE, role=Role.ADMIN),
        grant("completed", GranteeKind.ROLE, role=Role.ADMIN),
        grant("disputed", GranteeKind.ROLE, role=Role.ADMIN),
    )
    fields = (
        DocumentField(
            key="category",
            type=FieldType.CHOICE,
            labels=labels("Category", "类别", "Kategori"),
            required=True,
            choices=(
                Choice("travel", labels("Travel", "差旅", "Perjalanan")),
                Choice("meals", labels("Meals", "餐饮", "Makan")),
                Choice("lodging", labels("Lodging", "住宿", "Penginapan")),
                Choice("supplies", labels("Office supplies", "办公用品", "Bekalan pejabat")),
                Choice("other", labels("Other", "其他", "Lain-lain")),
            ),
        ),
        DocumentField(
            key="expense_date",
            type=FieldType.DATE,
            labels=labels("Date of expense", "费用日期", "Tarikh perbelanjaan"),
            required=True,
        ),
        DocumentField(
            key="receipt_number",
            type=FieldType.TEXT,
            labels=labels("Receipt number", "收据编号", "Nombor resit"),
        ),
    )
    return Graph(
        kind=EXPENSE_CLAIM,
        labels=labels("Expense claim", "费用报销", "Tuntutan perbelanjaan"),
        posting_order=PostingOrder.ACCRUAL_FIRST,
        exclusive_approval=True,
        states=states,
        transitions=transitions,
        grants=grants,
        fields=fields,
    ).normalised()
