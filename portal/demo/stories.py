"""What happened in ``acme`` before a newcomer signs in: the documents of the last ten
weeks, each a story of who asked for what, who decided, and how long each of them took.

Written as data so the history reads like a ledger: a story names its requester, its
kind, when it began (days before seeding) and a path — the steps its people took, each
a role in the story ("req", "rev", …) that ``history`` turns into a person, a
transition, and the hours the step waited. A step that would fall after the moment of
seeding is not taken: the document is still waiting there, as real ones are.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

# A step: (who, transition, hours since the previous step, comment). "who" is the
# requester ("req"), their reviewer ("rev"), approver ("app"), the admin who commits
# ("fin1"), the one who pays ("fin2"), an admin who settles a dispute ("fin3"), or
# "edit": the requester reworking the draft (no transition; the comment is the new
# description).
Step = tuple[str, str, float, str]


@dataclass(frozen=True)
class Story:
    requester: str
    kind: str
    title: str
    amount: Decimal
    # When it began, in days before the moment of seeding.
    days_ago: float
    path: tuple[Step, ...]
    # What the form said: the category (claims, purchases) or the type of leave.
    category: str = "travel"


SUBMIT: Step = ("req", "submit", 0.5, "")


def _claim_path(review_h: float, approve_h: float, verify_h: float, pay_h: float) -> list[Step]:
    return [
        SUBMIT,
        ("rev", "review", review_h, ""),
        ("app", "approve", approve_h, ""),
        ("fin1", "verify_category", verify_h, ""),
        ("fin2", "pay", pay_h, ""),
    ]


def paid(review_h: float, approve_h: float = 20, verify_h: float = 30, pay_h: float = 40):
    return tuple(_claim_path(review_h, approve_h, verify_h, pay_h))


def received(review_h: float, approve_h: float = 20, verify_h: float = 30, pay_h: float = 40):
    return (*paid(review_h, approve_h, verify_h, pay_h), ("req", "acknowledge", 18, ""))


def rejected_at_review(hours: float, why: str) -> tuple[Step, ...]:
    return (SUBMIT, ("rev", "reject", hours, why))


def rejected_at_approval(review_h: float, hours: float, why: str) -> tuple[Step, ...]:
    return (SUBMIT, ("rev", "review", review_h, ""), ("app", "reject", hours, why))


def reworked(why: str, change: str, review_h: float, then: tuple[Step, ...]) -> tuple[Step, ...]:
    """Rejected at review, revised and sent again; ``then`` continues after the second
    submission (its first step is the review)."""
    return (
        SUBMIT,
        ("rev", "reject", review_h, why),
        ("req", "revise", 20, ""),
        ("edit", "", 0.5, change),
        ("req", "submit", 0.2, ""),
        *then,
    )


def waiting_review() -> tuple[Step, ...]:
    return (SUBMIT,)


D = Decimal
CLAIMS = (
    # Ten weeks ago: the first claims, paid and received.
    Story("siti", "expense_claim", "Client visit, Penang", D("486.40"), 70, received(30)),
    Story("jason", "expense_claim", "Taxi fares, KL Sentral", D("92.00"), 68, received(52)),
    Story(
        "hannah", "expense_claim", "Recruitment fair booth", D("1250.00"), 66, received(20), "other"
    ),
    Story(
        "siti",
        "expense_claim",
        "Dinner with distributor",
        D("388.00"),
        64,
        rejected_at_review(40, "Over the meal limit of MYR 150 a head. Split or reduce it."),
        "meals",
    ),
    Story(
        "jason",
        "expense_claim",
        "Hotel, Johor Bahru trade fair",
        D("742.00"),
        62,
        reworked(
            "The hotel invoice is missing: attach it.",
            "Hotel invoice INV-2231 attached.",
            70,
            (
                ("rev", "review", 26, ""),
                ("app", "approve", 30, ""),
                ("fin1", "verify_category", 48, ""),
                ("fin2", "pay", 30, ""),
                ("req", "acknowledge", 10, ""),
            ),
        ),
        "lodging",
    ),
    Story(
        "siti",
        "expense_claim",
        "Flight to Kuching",
        D("612.90"),
        58,
        (
            *received(26),
            ("req", "dispute", 30, "Only MYR 512.90 arrived in my account."),
            ("fin3", "dismiss", 40, "The bank charged MYR 100 on her side; the transfer is whole."),
        ),
        "travel",
    ),
    Story(
        "hannah",
        "expense_claim",
        "Training course fees",
        D("2400.00"),
        55,
        received(60, 48),
        "other",
    ),
    Story(
        "jason",
        "expense_claim",
        "Printer toner",
        D("318.00"),
        52,
        rejected_at_approval(28, 36, "Office supplies go through a purchase request."),
        "supplies",
    ),
    Story("siti", "expense_claim", "Mileage, Melaka customers", D("264.60"), 49, received(96)),
    Story(
        "jason",
        "expense_claim",
        "Client lunch, Bangsar",
        D("146.50"),
        47,
        received(20, 60),
        "meals",
    ),
    Story(
        "siti",
        "expense_claim",
        "Parking, November",
        D("120.00"),
        45,
        rejected_at_review(60, "Parking is covered by the monthly allowance."),
        "other",
    ),
    Story(
        "hannah",
        "expense_claim",
        "Office plants",
        D("180.00"),
        43,
        (SUBMIT, ("req", "withdraw", 20, "Facilities pays for these after all.")),
        "supplies",
    ),
    Story(
        "jason",
        "expense_claim",
        "Hotel, Kota Kinabalu",
        D("980.00"),
        41,
        (
            *paid(30),
            ("req", "dispute", 26, "Paid MYR 890, not MYR 980."),
            ("fin3", "uphold", 20, "Short by MYR 90: reversed, to be claimed again."),
        ),
        "lodging",
    ),
    Story("siti", "expense_claim", "Train to Ipoh", D("78.00"), 38, received(110, 20)),
    Story(
        "siti",
        "expense_claim",
        "Exhibition stand hire",
        D("3150.00"),
        36,
        reworked(
            "Quote two suppliers for anything over MYR 3,000.",
            "Second quote attached.",
            50,
            (
                ("rev", "review", 40, ""),
                ("app", "reject", 30, "The cheaper quote was not taken: explain or resubmit."),
            ),
        ),
        "other",
    ),
    Story(
        "hannah", "expense_claim", "Staff welfare lunch", D("640.00"), 34, received(44, 30), "meals"
    ),
    Story("jason", "expense_claim", "Flight to Penang", D("356.00"), 31, received(72, 20, 60)),
    Story(
        "siti",
        "expense_claim",
        "Client gifts, Deepavali",
        D("450.00"),
        28,
        rejected_at_review(80, "Gifts need the Sales Director's approval first."),
        "other",
    ),
    Story("hannah", "expense_claim", "Interview travel", D("210.00"), 26, paid(30, 20, 30, 40)),
    Story("jason", "expense_claim", "Taxi, airport run", D("88.00"), 24, received(90)),
    Story(
        "siti",
        "expense_claim",
        "Hotel, Penang roadshow",
        D("1120.00"),
        21,
        (*received(60), ("req", "dispute", 20, "The roadshow's second night was left out.")),
        "lodging",
    ),
    Story(
        "jason",
        "expense_claim",
        "Team dinner, quarter close",
        D("980.00"),
        18,
        rejected_at_review(30, "Team dinners are the manager's to claim."),
        "meals",
    ),
    Story("siti", "expense_claim", "Mileage, Seremban", D("142.80"), 16, paid(100, 30, 40, 30)),
    Story(
        "hannah",
        "expense_claim",
        "Medical check-ups",
        D("860.00"),
        14,
        (
            SUBMIT,
            ("rev", "review", 26, ""),
            ("app", "approve", 20, ""),
            ("fin1", "verify_category", 50, ""),
        ),
        "other",
    ),
    # The last fortnight: still on their way, some past their deadline.
    Story("jason", "expense_claim", "Client visit, Ipoh", D("412.00"), 12, waiting_review()),
    Story(
        "siti",
        "expense_claim",
        "Conference pass",
        D("1500.00"),
        11,
        (SUBMIT, ("rev", "review", 60, ""), ("app", "approve", 30, "")),
        "other",
    ),
    Story("siti", "expense_claim", "Taxi fares, December", D("64.00"), 9, waiting_review()),
    Story(
        "jason",
        "expense_claim",
        "Courier to customer",
        D("38.50"),
        7,
        (SUBMIT, ("rev", "review", 90, "")),
        "supplies",
    ),
    Story(
        "hannah",
        "expense_claim",
        "Onboarding supplies",
        D("295.00"),
        6,
        waiting_review(),
        "supplies",
    ),
    Story(
        "jason",
        "expense_claim",
        "Printer paper",
        D("54.00"),
        4,
        reworked("Wrong category: this is office supplies.", "Category corrected.", 20, ()),
        "supplies",
    ),
    Story(
        "siti",
        "expense_claim",
        "Client lunch, Mid Valley",
        D("96.00"),
        2,
        waiting_review(),
        "meals",
    ),
    Story("siti", "expense_claim", "Hotel, Kuantan", D("380.00"), 0.3, (), "lodging"),
)

PURCHASES = (
    Story(
        "priya",
        "purchase_request",
        "Label printer",
        D("1290.00"),
        60,
        (SUBMIT, ("rev", "approve", 20, "")),
        "goods",
    ),
    Story(
        "weijie",
        "purchase_request",
        "Warehouse racking",
        D("14800.00"),
        46,
        (SUBMIT, ("rev", "approve", 40, "")),
        "goods",
    ),
    Story(
        "jason",
        "purchase_request",
        "CRM licences",
        D("6200.00"),
        33,
        (SUBMIT, ("rev", "reject", 30, "Wait for the group-wide licence deal.")),
        "software",
    ),
    Story(
        "priya",
        "purchase_request",
        "Forklift servicing",
        D("2400.00"),
        19,
        (SUBMIT, ("rev", "approve", 30, "")),
        "services",
    ),
    Story("weijie", "purchase_request", "Safety boots", D("840.00"), 0.6, (SUBMIT,), "goods"),
)

LEAVES = (
    Story(
        "siti",
        "leave_request",
        "Hari Raya leave",
        D("0"),
        65,
        (SUBMIT, ("rev", "approve", 20, "")),
        "annual",
    ),
    Story(
        "priya",
        "leave_request",
        "Family wedding",
        D("0"),
        40,
        (SUBMIT, ("rev", "approve", 50, "")),
        "annual",
    ),
    Story(
        "jason",
        "leave_request",
        "Medical leave",
        D("0"),
        30,
        (SUBMIT, ("rev", "approve", 4, "")),
        "sick",
    ),
    Story(
        "weijie",
        "leave_request",
        "Year-end trip",
        D("0"),
        22,
        (SUBMIT, ("rev", "reject", 30, "Stocktake week: pick other days.")),
        "annual",
    ),
    Story("hannah", "leave_request", "Year-end break", D("0"), 8, (SUBMIT,), "annual"),
)

STORIES = (*CLAIMS, *PURCHASES, *LEAVES)
