"""The actions the editor suggests for a new arrow: a key and its label in every
language a flow is labelled in. One list, kept here, so a flow's arrows are named alike
from one flow to the next (and never "go_2" with no label at all).

These are flow labels, written into the graph per locale, not interface text: they are
not translated through the catalogues but given in each language at once.
"""

from __future__ import annotations

from typing import Final

ACTION_SUGGESTIONS: Final[tuple[tuple[str, dict[str, str]], ...]] = (
    ("submit", {"en": "Submit", "zh": "提交", "ms": "Hantar"}),
    ("approve", {"en": "Approve", "zh": "核准", "ms": "Luluskan"}),
    ("reject", {"en": "Reject", "zh": "退回", "ms": "Tolak"}),
    (
        "send_back",
        {"en": "Send back for changes", "zh": "退回修改", "ms": "Kembalikan untuk dipinda"},
    ),
    ("review", {"en": "Review", "zh": "审核", "ms": "Semak"}),
    ("verify", {"en": "Verify", "zh": "核实", "ms": "Sahkan"}),
    ("pay", {"en": "Pay", "zh": "付款", "ms": "Bayar"}),
    ("acknowledge", {"en": "Acknowledge receipt", "zh": "确认收到", "ms": "Akui penerimaan"}),
    ("withdraw", {"en": "Withdraw", "zh": "撤回", "ms": "Tarik balik"}),
    ("cancel", {"en": "Cancel", "zh": "取消", "ms": "Batalkan"}),
    ("resubmit", {"en": "Resubmit", "zh": "重新提交", "ms": "Hantar semula"}),
    ("dispute", {"en": "Raise a dispute", "zh": "提出异议", "ms": "Bangkitkan pertikaian"}),
)


def action_suggestions() -> list[dict[str, object]]:
    """The suggestions as the editor's setup carries them."""
    return [{"key": key, "labels": dict(labels)} for key, labels in ACTION_SUGGESTIONS]
