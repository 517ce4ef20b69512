"""Countersign: a multi-tenant approval-workflow portal."""
