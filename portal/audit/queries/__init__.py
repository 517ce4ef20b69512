"""What the audit pages read: the search, a document's timeline, the stall figures and
the verification results. Every statement names the organization."""
