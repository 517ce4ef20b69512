"""An organization's home page, per role: what waits for the member, their documents
under way, what is overdue; for admins the flows and chart gaps that need them; for
admins and auditors the organization's documents. It reads the other features through
their queries and services, so it sits above them all."""
