"""Users, organizations, memberships and roles; sign-in."""
