"""Setting up an organization on the platform: the organization itself (accounts), then
the seeded flows every organization starts with (flows).

Platform-level, above every feature: the CLI, the demo, benchmarks and tests call it;
no feature does. Two transactions: the tenant is fixed when a transaction begins, and
the organization did not exist before the first. Seeding is idempotent, so
`portal seed-flows` repairs an interrupted one.
"""

from __future__ import annotations

from portal.accounts import services as accounts
from portal.accounts.models import Organization
from portal.flows.services import seed_flows


def provision_organization(
    slug: str,
    name: str,
    *,
    base_currency: str = "USD",
    default_locale: str = "en",
    time_zone: str = "UTC",
    territory: str | None = None,
) -> Organization:
    """A new organization with v1 of every seeded flow."""
    org = accounts.create_organization(
        slug,
        name,
        base_currency=base_currency,
        default_locale=default_locale,
        time_zone=time_zone,
        territory=territory,
    )
    seed_flows(org.id)
    return org
