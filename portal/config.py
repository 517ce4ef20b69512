"""Settings read from ``PORTAL_*`` environment variables, with safe defaults.

Every variable is listed in the README's configuration table; keep the two in step. A
value that cannot be used stops the process at once with a message naming the variable
(``ConfigError``): a typo must not start a portal with a silent default. Production
requires PostgreSQL and Redis: the embedded SQLite file and in-process fake Redis serve
one process only, and sign-in throttling counted per process protects nothing.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from portal.domain.locales import SUPPORTED_LOCALES as SUPPORTED_LOCALES  # one list, shared

# Everything read at run time lives inside the package, so an installed wheel finds it.
PACKAGE_DIR = Path(__file__).resolve().parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
STATIC_DIR = PACKAGE_DIR / "static"
TRANSLATIONS_DIR = PACKAGE_DIR / "translations"
MIGRATIONS_DIR = PACKAGE_DIR / "migrations"

ENVIRONMENTS = ("development", "production", "test")
SMTP_SECURITY = ("none", "starttls", "tls")
LOG_FORMATS = ("json", "text")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_TOKEN = re.compile(r"[A-Za-z0-9._-]{24,200}")
_HOOK = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigError(RuntimeError):
    """A ``PORTAL_*`` variable the portal cannot start with; the message names it."""


@dataclass(frozen=True)
class Settings:
    env: str = "development"
    instance_dir: Path = field(default_factory=lambda: Path.cwd() / "instance")
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
    # Where people reach the portal: links in mail are built on it.
    base_url: str = "http://127.0.0.1:5000"
    # Mail: SMTP when a host is set; otherwise (outside production) .eml files under
    # instance/mail/, so the demo shows what would have been sent.
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_security: str = "starttls"
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_timeout: int = 20
    mail_sender: str = "Countersign <no-reply@countersign.invalid>"
    # How many proxies in front of the web processes set X-Forwarded-For/-Proto.
    trusted_proxies: int = 0
    # Outside production only: a file whose offset moves the clock on (``core.clock``),
    # shared by a browser test's server and worker.
    clock_file: Path | None = None
    # Seconds between two runs of the deadline sweep's planner (`portal scheduler`).
    sweep_interval: int = 60
    # Delivered outbox rows are deleted after this many days (``portal outbox prune``).
    outbox_retention_days: int = 30
    # The most rows one export of the audit search may hold (more: narrow the search).
    audit_export_max_rows: int = 100_000
    # Logs: one JSON object a line (production's default) or readable text, and from
    # which level; ``core.logs``.
    log_format: str = "text"
    log_level: str = "INFO"
    # "package.module:function", called with every unexpected error of a request or a
    # job (an error tracker's client, say); ``core.logs.load_error_hook``.
    error_hook: str = ""
    # What a Prometheus scraper must send to read /metrics (off while empty).
    metrics_token: str = ""
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

    @property
    def mail_directory(self) -> Path:
        """Where mail goes when no SMTP host is configured."""
        return self.instance_dir / "mail"

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = _Reader(os.environ if environ is None else environ)
        mode = env.choice("PORTAL_ENV", ENVIRONMENTS, "development")
        production = mode == "production"
        # Beside where `portal` runs (the checkout for `make demo`), unless configured.
        instance_dir = Path(env.text("PORTAL_INSTANCE_DIR") or Path.cwd() / "instance").resolve()
        database_url = env.text("PORTAL_DATABASE_URL") or (
            f"sqlite:///{instance_dir / 'portal.sqlite3'}"
        )
        redis_url = env.text("PORTAL_REDIS_URL")
        smtp_host = env.text("PORTAL_SMTP_HOST")
        settings = cls(
            env=mode,
            instance_dir=instance_dir,
            database_url=database_url,
            migrate_database_url=env.text("PORTAL_MIGRATE_DATABASE_URL") or database_url,
            redis_url=redis_url,
            secret_key=env.text("PORTAL_SECRET_KEY"),
            secure_cookies=env.flag("PORTAL_SECURE_COOKIES", production),
            default_locale=env.choice("PORTAL_DEFAULT_LOCALE", SUPPORTED_LOCALES, "en"),
            db_pool_size=env.number("PORTAL_DB_POOL_SIZE", 5, 1, 200),
            embedded_worker=env.flag("PORTAL_EMBEDDED_WORKER", not redis_url),
            login_max_failures_per_account=env.number(
                "PORTAL_LOGIN_MAX_FAILURES_PER_ACCOUNT", 5, 1, 1000
            ),
            login_max_failures_per_address=env.number(
                "PORTAL_LOGIN_MAX_FAILURES_PER_ADDRESS", 20, 1, 100_000
            ),
            login_throttle_seconds=env.number("PORTAL_LOGIN_THROTTLE_SECONDS", 900, 1, 86_400),
            base_url=env.url("PORTAL_BASE_URL", "http://127.0.0.1:5000"),
            smtp_host=smtp_host,
            smtp_port=env.number("PORTAL_SMTP_PORT", 587, 1, 65_535),
            smtp_security=env.choice("PORTAL_SMTP_SECURITY", SMTP_SECURITY, "starttls"),
            smtp_user=env.text("PORTAL_SMTP_USER"),
            smtp_password=env.text("PORTAL_SMTP_PASSWORD"),
            smtp_timeout=env.number("PORTAL_SMTP_TIMEOUT", 20, 1, 600),
            mail_sender=env.text("PORTAL_MAIL_SENDER") or cls.mail_sender,
            trusted_proxies=env.number("PORTAL_TRUSTED_PROXIES", 0, 0, 10),
            clock_file=Path(env.text("PORTAL_CLOCK_FILE"))
            if env.text("PORTAL_CLOCK_FILE")
            else None,
            sweep_interval=env.number("PORTAL_SWEEP_INTERVAL", 60, 5, 3600),
            outbox_retention_days=env.number("PORTAL_OUTBOX_RETENTION_DAYS", 30, 1, 3650),
            audit_export_max_rows=env.number(
                "PORTAL_AUDIT_EXPORT_MAX_ROWS", 100_000, 1, 10_000_000
            ),
            log_format=env.choice(
                "PORTAL_LOG_FORMAT", LOG_FORMATS, "json" if production else "text"
            ),
            log_level=env.choice("PORTAL_LOG_LEVEL", LOG_LEVELS, "INFO"),
            error_hook=env.text("PORTAL_ERROR_HOOK"),
            metrics_token=env.text("PORTAL_METRICS_TOKEN"),
        )
        if settings.metrics_token and not _TOKEN.fullmatch(settings.metrics_token):
            raise ConfigError(
                "PORTAL_METRICS_TOKEN must be 24 to 200 letters, digits, '-', '_' or '.'"
            )
        if settings.error_hook and not _HOOK.fullmatch(settings.error_hook):
            raise ConfigError(
                f"PORTAL_ERROR_HOOK must name a function as package.module:function; it is {settings.error_hook!r}"
            )
        if production and settings.clock_file is not None:
            raise ConfigError(
                "PORTAL_CLOCK_FILE moves the clock for tests; it is refused when PORTAL_ENV=production"
            )
        if production:
            _require_production_services(settings, env)
        return settings


class _Reader:
    """Reads one variable at a time, refusing what it cannot use by name."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def text(self, name: str) -> str:
        return self.environ.get(name, "").strip()

    def choice(self, name: str, allowed: tuple[str, ...], default: str) -> str:
        value = self.text(name) or default
        if value not in allowed:
            raise ConfigError(f"{name} must be one of {', '.join(allowed)}; it is {value!r}")
        return value

    def flag(self, name: str, default: bool) -> bool:
        value = self.text(name).lower()
        if not value:
            return default
        if value in _TRUE | _FALSE:
            return value in _TRUE
        raise ConfigError(f"{name} must be on or off (1/0, true/false, yes/no); it is {value!r}")

    def number(self, name: str, default: int, minimum: int, maximum: int) -> int:
        value = self.text(name)
        if not value:
            return default
        # Digits first, and no more of them than the maximum has: int() of thousands of
        # digits is refused by Python itself, with a message that names no variable.
        digits = value.isascii() and value.isdigit() and len(value) <= len(str(maximum))
        if not (digits and minimum <= int(value) <= maximum):
            raise ConfigError(
                f"{name} must be a whole number from {minimum} to {maximum}; it is {value!r}"
            )
        return int(value)

    def url(self, name: str, default: str) -> str:
        value = (self.text(name) or default).rstrip("/")
        parts = urlsplit(value)
        if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query:
            raise ConfigError(f"{name} must be an http(s) address such as https://example.com")
        return value


def _require_production_services(settings: Settings, env: _Reader) -> None:
    if not settings.is_postgres:
        raise ConfigError("PORTAL_DATABASE_URL must name PostgreSQL when PORTAL_ENV=production")
    if not settings.redis_url:
        raise ConfigError(
            "PORTAL_REDIS_URL must be set when PORTAL_ENV=production "
            "(the queue and the sign-in throttle are shared through it)"
        )
    if not settings.smtp_host:
        raise ConfigError("PORTAL_SMTP_HOST must be set when PORTAL_ENV=production")
    if not env.text("PORTAL_BASE_URL"):
        raise ConfigError("PORTAL_BASE_URL must be set when PORTAL_ENV=production")
    if not urlsplit(settings.base_url).scheme == "https":
        raise ConfigError("PORTAL_BASE_URL must be an https:// address in production")


def resolve_secret_key(settings: Settings) -> str:
    """The configured key, or one generated once and kept in the instance folder.

    Production must configure ``PORTAL_SECRET_KEY``: a key on local disk would differ
    between web processes.
    """
    if settings.secret_key:
        if settings.is_production and len(settings.secret_key) < 32:
            raise ConfigError("PORTAL_SECRET_KEY must be at least 32 characters in production")
        return settings.secret_key
    if settings.is_production:
        raise ConfigError("PORTAL_SECRET_KEY must be set when PORTAL_ENV=production")
    settings.instance_dir.mkdir(parents=True, exist_ok=True)
    key_file = settings.instance_dir / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(48))
        key_file.chmod(0o600)
    return key_file.read_text().strip()
