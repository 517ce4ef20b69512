"""Counting failures in a time window, on Redis (shared by every web process)."""

from __future__ import annotations

from dataclasses import dataclass

from redis import Redis


@dataclass(frozen=True)
class FailureWindow:
    redis: Redis
    prefix: str
    limit: int
    window_seconds: int

    def _key(self, subject: str) -> str:
        return f"{self.prefix}:{subject}"

    def blocked_for(self, subject: str) -> int:
        """Seconds until ``subject`` may try again; 0 when it is not blocked."""
        count = self.redis.get(self._key(subject))
        if count is None or int(count) < self.limit:
            return 0
        ttl = self.redis.ttl(self._key(subject))
        return max(int(ttl), 1)

    def record_failure(self, subject: str) -> None:
        key = self._key(subject)
        pipe = self.redis.pipeline()
        pipe.incr(key)
        # The window starts with the first failure; later failures do not extend it,
        # so a block always ends (no permanent lock-out).
        pipe.expire(key, self.window_seconds, nx=True)
        pipe.execute()

    def reset(self, subject: str) -> None:
        self.redis.delete(self._key(subject))
