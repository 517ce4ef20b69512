"""Accounts' writes, one unit of work each, by purpose: organizations, people and
memberships, sign-in, invitations, passwords, two-factor sign-in. The services the CLI,
the demo, benchmarks and other features call are named here too."""

from __future__ import annotations

from portal.accounts.services.invitations import (
    invite_member,
    members_overview,
    resend_invitation,
    revoke_invitation,
)
from portal.accounts.services.organizations import (
    archive_organization,
    create_organization,
    restore_organization,
    set_admin_two_factor,
)
from portal.accounts.services.people import (
    create_user,
    deactivate_member,
    end_sessions,
    enrol_member,
    leave_organization,
    reactivate_member,
    rename_account,
    set_account_active,
    set_member_roles,
    set_user_locale,
)
from portal.accounts.services.settings import (
    MySettings,
    OrganizationSettings,
    get_my_settings,
    get_organization_settings,
    set_my_time_zone,
    update_organization_settings,
)

__all__ = [
    "MySettings",
    "OrganizationSettings",
    "archive_organization",
    "create_organization",
    "create_user",
    "deactivate_member",
    "end_sessions",
    "enrol_member",
    "get_my_settings",
    "get_organization_settings",
    "invite_member",
    "leave_organization",
    "members_overview",
    "reactivate_member",
    "rename_account",
    "resend_invitation",
    "restore_organization",
    "revoke_invitation",
    "set_account_active",
    "set_admin_two_factor",
    "set_member_roles",
    "set_my_time_zone",
    "set_user_locale",
    "update_organization_settings",
]
