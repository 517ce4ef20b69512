"""In-app notifications: the bell, and the outbox handler that fills it."""
