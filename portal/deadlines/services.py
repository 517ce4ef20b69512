"""(filled by the deadline sweep)."""
