"""The auditor's workplace: find any document of the organization, read its whole story,
export it, prove that nothing in its history was changed, and see where approvals stall.

Read-only: admins and auditors reach it (every document of their organization), nobody
else does — every audit URL is a 404 to anyone else. It reads the other features
through their queries, so it sits above them; what it writes is its own record of
exports and chain verifications.
"""
