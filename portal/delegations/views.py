"""The delegations pages."""
