"""Operations: what an organization's admins and the platform's operators need to see of
the background half (overdue tasks, the outbox, dead letters, the sweep, the workers)."""
