"""The seeded one-decision requests: a purchase request and a leave request."""

from __future__ import annotations

from decimal import Decimal

from portal.domain.graph import (
    BreachAction,
    Choice,
    Deadline,
    DocumentField,
    FieldType,
    Gate,
    Grant,
    Grantee,
    GranteeKind,
    Graph,
    PostingOrder,
    StateRole,
    TransitionGuard,
)
from portal.domain.labels import Labels
from portal.flows.seeded.kinds import (
    LEAVE_REQUEST,
    PURCHASE_REQUEST,
    PURCHASE_UNIT_HEAD_FLOOR,
)
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


def _single_step(
    *,
    kind: str,
    names: Labels,
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
        state("draft", labels("Draft", "草稿", "Draf"), StateRole.DRAFT, 40, 200),
        state(step, step_labels, StateRole.PENDING, 280, 200, deadline=deadline),
        state(
            "approved",
            labels("Approved", "已批准", "Diluluskan"),
            StateRole.CUSTOM,
            520,
            120,
            terminal=True,
        ),
        state(
            "rejected",
            labels("Rejected", "已拒绝", "Ditolak"),
            StateRole.REJECTED,
            520,
            280,
            terminal=True,
        ),
        state(
            "cancelled",
            labels("Withdrawn", "已撤回", "Ditarik balik"),
            StateRole.CANCELLED,
            280,
            400,
            terminal=True,
        ),
    )
    transitions = (
        go("submit", "draft", step, Gate.REQUESTER, SUBMIT, 1, guard=submit_guard),
        go("approve", step, "approved", Gate.TARGET, APPROVE, 1),
        with_comment(go("reject", step, "rejected", Gate.ADVANCE, REJECT, 2)),
        with_comment(go("withdraw", step, "cancelled", Gate.REQUESTER, WITHDRAW, 3)),
    )
    return Graph(
        kind=kind,
        labels=names,
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
        names=labels("Purchase request", "采购申请", "Permohonan pembelian"),
        step="submitted",
        step_labels=labels("Submitted", "已提交", "Dihantar"),
        deadline=Deadline(after="48h", on_breach=BreachAction.ESCALATE_UP),
        submit_guard=TransitionGuard(
            POSITIVE_AMOUNT,
            labels(
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
                labels=labels("Supplier", "供应商", "Pembekal"),
                required=True,
            ),
            DocumentField(
                key="category",
                type=FieldType.CHOICE,
                labels=labels("Category", "类别", "Kategori"),
                required=True,
                choices=(
                    Choice("goods", labels("Goods", "货物", "Barangan")),
                    Choice("services", labels("Services", "服务", "Perkhidmatan")),
                    Choice("software", labels("Software", "软件", "Perisian")),
                ),
            ),
            DocumentField(
                key="needed_by",
                type=FieldType.DATE,
                labels=labels("Needed by", "需要日期", "Diperlukan sebelum"),
            ),
        ),
    )


def leave_request(base_currency: str) -> Graph:
    """draft → manager_review → approved | rejected (with a comment), or withdrawn.
    The requester's superior decides; a reminder goes out after three days."""
    del base_currency  # leave carries no money
    return _single_step(
        kind=LEAVE_REQUEST,
        names=labels("Leave request", "请假申请", "Permohonan cuti"),
        step="manager_review",
        step_labels=labels("Manager review", "经理审核", "Semakan pengurus"),
        deadline=Deadline(after="3d", on_breach=BreachAction.REMIND),
        submit_guard=TransitionGuard(
            "document.fields.last_day >= document.fields.first_day",
            labels(
                "The last day of leave cannot be before the first.",
                "休假的最后一天不能早于第一天。",
                "Hari terakhir cuti tidak boleh sebelum hari pertama.",
            ),
        ),
        grants=(grant("approved", GranteeKind.SUPERIOR),),
        fields=(
            DocumentField(
                key="leave_type",
                type=FieldType.CHOICE,
                labels=labels("Leave type", "假期类型", "Jenis cuti"),
                required=True,
                choices=(
                    Choice("annual", labels("Annual leave", "年假", "Cuti tahunan")),
                    Choice("sick", labels("Sick leave", "病假", "Cuti sakit")),
                    Choice("unpaid", labels("Unpaid leave", "无薪假", "Cuti tanpa gaji")),
                ),
            ),
            DocumentField(
                key="first_day",
                type=FieldType.DATE,
                labels=labels("First day", "第一天", "Hari pertama"),
                required=True,
            ),
            DocumentField(
                key="last_day",
                type=FieldType.DATE,
                labels=labels("Last day", "最后一天", "Hari terakhir"),
                required=True,
            ),
        ),
    )
