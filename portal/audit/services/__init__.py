"""The audit's units of work: each export recorded as it starts, and the verification of
an organization's chains stored with its result."""
