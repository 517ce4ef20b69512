"""Settings read from ``PORTAL_*`` environment variables, with safe defaults.

Every variable is listed in the README's configuration table; keep the two in step.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from portal.domain.locales import SUPPORTED_LOCALES as SUPPORTED_LOCALES  # one list, shared

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = REPO_ROOT / "templates"
STATIC_DIR = REPO_ROOT / "static"
TRANSLATIONS_DIR = REPO_ROOT / "translations"
MIGRATIONS_DIR = REPO_ROOT / "migrations"


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    env: str = "development"
    instance_dir: Path = REPO_ROOT / "instance"
    database_url: str = ""
    migrate_database_url: str = ""
    redis_url: str = ""
    secret_key: str = ""
    secure_cookies: bool = False
    default_locale: str = "en"
    db_pool_size: int = 5
    embedded_worker: bool = True
    login_max_failures_per_account: int = 5
    login_max_failures_per_address: int = 20
    login_throttle_seconds: int = 900
    testing: bool = False
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith("postgresql")

    @property
    def embedded_redis(self) -> bool:
        """No Redis URL means RQ runs on an in-process fake Redis (demo mode)."""
        return not self.redis_url

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        mode = env.get("PORTAL_ENV", "development")
        instance_dir = Path(env.get("PORTAL_INSTANCE_DIR") or REPO_ROOT / "instance")
        database_url = env.get("PORTAL_DATABASE_URL") or (
            f"sqlite:///{instance_dir / 'portal.sqlite3'}"
        )
        redis_url = env.get("PORTAL_REDIS_URL", "")
        return cls(
            env=mode,
            instance_dir=instance_dir,
            database_url=database_url,
            migrate_database_url=env.get("PORTAL_MIGRATE_DATABASE_URL") or database_url,
            redis_url=redis_url,
            secret_key=env.get("PORTAL_SECRET_KEY", ""),
            secure_cookies=_flag(env.get("PORTAL_SECURE_COOKIES"), mode == "production"),
            default_locale=env.get("PORTAL_DEFAULT_LOCALE", "en"),
            db_pool_size=int(env.get("PORTAL_DB_POOL_SIZE", "5")),
            embedded_worker=_flag(env.get("PORTAL_EMBEDDED_WORKER"), not redis_url),
            login_max_failures_per_account=int(
                env.get("PORTAL_LOGIN_MAX_FAILURES_PER_ACCOUNT", "5")
            ),
            login_max_failures_per_address=int(
                env.get("PORTAL_LOGIN_MAX_FAILURES_PER_ADDRESS", "20")
            ),
            login_throttle_seconds=int(env.get("PORTAL_LOGIN_THROTTLE_SECONDS", "900")),
        )


def resolve_secret_key(settings: Settings) -> str:
    """The configured key, or one generated once and kept in the instance folder.

    Production must configure ``PORTAL_SECRET_KEY``: a key on local disk would differ
    between web processes.
    """
    if settings.secret_key:
        return settings.secret_key
    if settings.is_production:
        raise RuntimeError("PORTAL_SECRET_KEY must be set when PORTAL_ENV=production")
    settings.instance_dir.mkdir(parents=True, exist_ok=True)
    key_file = settings.instance_dir / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(48))
        key_file.chmod(0o600)
    return key_file.read_text().strip()
