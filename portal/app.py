"""``create_app(settings)``: configuration -> extensions -> blueprints. Never queries."""

from __future__ import annotations

from flask import Flask, got_request_exception

from portal.config import (
    PACKAGE_DIR,
    STATIC_DIR,
    TEMPLATES_DIR,
    TRANSLATIONS_DIR,
    Settings,
    resolve_secret_key,
)
from portal.core.clock import clock
from portal.core.links import link_signer
from portal.core.logs import ErrorHook, configure_logging, load_error_hook, report_error
from portal.core.queue import EmbeddedWorker, redis_holder
from portal.extensions import babel, csrf, db, htmx, login_manager
from portal.web.security import trust_proxies


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings.from_env()
    app = Flask(
        "portal",
        root_path=str(PACKAGE_DIR),
        template_folder=str(TEMPLATES_DIR),
        static_folder=str(STATIC_DIR),
        instance_path=str(settings.instance_dir),
    )
    app.config.update(
        SECRET_KEY=resolve_secret_key(settings),
        TESTING=settings.testing,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.secure_cookies,
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_SECURE=settings.secure_cookies,
        PERMANENT_SESSION_LIFETIME=60 * 60 * 12,
        WTF_CSRF_HEADERS=["X-CSRFToken"],
        WTF_CSRF_TIME_LIMIT=60 * 60 * 12,
        BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS_DIR),
        BABEL_DEFAULT_LOCALE="en",
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
    )
    app.extensions["portal.settings"] = settings
    if not settings.testing:  # a test run's logs are pytest's to capture
        configure_logging(log_format=settings.log_format, level=settings.log_level)
    _report_errors(app, load_error_hook(settings.error_hook))
    trust_proxies(app, settings.trusted_proxies)

    clock.follow_file(settings.clock_file)
    db.configure(settings.database_url, pool_size=settings.db_pool_size)
    redis_holder.configure(settings.redis_url)

    from portal.web.i18n import select_locale, select_timezone

    login_manager.init_app(app)
    csrf.init_app(app)
    babel.init_app(app, locale_selector=select_locale, timezone_selector=select_timezone)
    htmx.init_app(app)

    link_signer.configure(app.config["SECRET_KEY"])
    _register_web(app, settings)
    _register_blueprints(app)
    _register_outbox_handlers(app, settings)

    if settings.embedded_worker and redis_holder.embedded and not settings.testing:
        worker = EmbeddedWorker(redis_holder.get())
        worker.start()
        app.extensions["portal.embedded_worker"] = worker
    return app


def _report_errors(app: Flask, hook: ErrorHook | None) -> None:
    """Every unexpected error of a request reaches Flask's ``got_request_exception``
    (``web.errors`` sends it), where an error tracker listens; the configured hook is
    one such listener. Workers hand theirs to the same hook (``core.worker``)."""
    app.extensions["portal.error_hook"] = hook
    if hook is None:
        return

    def _to_hook(_sender: Flask, exception: BaseException, **_extra: object) -> None:
        report_error(hook, exception)

    got_request_exception.connect(_to_hook, app, weak=False)


def _register_web(app: Flask, settings: Settings) -> None:
    """The shared web glue, with the features it serves wired in: ``web/`` knows none."""
    from portal.accounts import queries as accounts
    from portal.inbox.queries import nav_badges
    from portal.web.auth import init_auth
    from portal.web.connection import init_request_connection
    from portal.web.errors import init_errors
    from portal.web.i18n import init_i18n_filters
    from portal.web.metrics import init_metrics
    from portal.web.nav import init_nav
    from portal.web.request_input import init_request_input
    from portal.web.security import init_security_headers
    from portal.web.tenancy import init_tenancy

    _register_throttles(app, settings)
    # First: the id converter must exist before any route.
    init_request_input(app, trust_request_id=settings.trusted_proxies > 0)
    init_request_connection(app)  # before tenancy: the user's load uses it too
    init_auth(app, load_user=accounts.load_session_user)
    init_tenancy(
        app,
        resolve_actor=accounts.actor_in,
        organizations_of=accounts.organizations_of,
        admin_two_factor=accounts.admin_two_factor_required,
        second_factor_page="account.two_factor_page",
    )
    init_errors(app)
    init_metrics(app)
    init_security_headers(app, production=settings.is_production)
    init_i18n_filters(app)
    init_nav(
        app,
        my_organizations=accounts.list_my_organizations,
        badges=("inbox_count", "unread_count"),
        count_badges=nav_badges,
    )


def _register_throttles(app: Flask, settings: Settings) -> None:
    """Failure counters on Redis, shared by every web process (DESIGN §10)."""
    from portal.accounts.services.passwords import ResetThrottle
    from portal.accounts.services.sign_in import LoginThrottle
    from portal.core.ratelimit import FailureWindow

    redis, window = redis_holder.get(), settings.login_throttle_seconds

    def counter(prefix: str, limit: int, seconds: int = window) -> FailureWindow:
        return FailureWindow(redis, prefix, limit, seconds)

    app.extensions["portal.login_throttle"] = LoginThrottle(
        by_account=counter("login-fail:account", settings.login_max_failures_per_account),
        by_address=counter("login-fail:address", settings.login_max_failures_per_address),
        by_device=counter("login-fail:device", settings.login_max_failures_per_account),
        second_step=counter("login-fail:code", settings.login_max_failures_per_account),
    )
    app.extensions["portal.reset_throttle"] = ResetThrottle(
        by_email=counter("reset:email", 3, 3600),
        by_address=counter("reset:address", settings.login_max_failures_per_address, 3600),
    )


def _register_outbox_handlers(app: Flask, settings: Settings) -> None:
    """Who delivers which outbox topic (workers build the app, so they know them too),
    and what happens when someone joins an organization."""
    from portal.accounts.mail import COMPOSERS
    from portal.accounts.services.joining import on_member_joined
    from portal.audit import models as _audit  # noqa: F401  (registers the tables)
    from portal.core import heartbeat as _heartbeat  # noqa: F401  (registers the table)
    from portal.core.mail import transport_for
    from portal.deadlines import models as _deadlines  # noqa: F401  (registers the table)
    from portal.delegations import models as _delegations  # noqa: F401  (registers the table)
    from portal.notifications import delivery
    from portal.notifications.mail import COMPOSERS as NOTICE_COMPOSERS
    from portal.orgchart.services.seating import settle_reservations_in
    from portal.web.mail import init_mail

    delivery.register()
    init_mail(
        app,
        composers={**COMPOSERS, **NOTICE_COMPOSERS},
        transport=transport_for(settings),
        sender=settings.mail_sender,
    )
    on_member_joined(settle_reservations_in)


def _register_blueprints(app: Flask) -> None:
    from portal.accounts.views import account_bp, invitations_bp, settings_bp
    from portal.accounts.views import admin_bp as members_bp
    from portal.accounts.views import bp as accounts_bp
    from portal.audit.views import bp as audit_bp
    from portal.delegations.views import bp as delegations_bp
    from portal.documents.views import bp as documents_bp
    from portal.flows.api import bp as flows_api_bp
    from portal.flows.views import bp as flows_bp
    from portal.flows.views import routing_bp, schema_bp
    from portal.home.views import bp as home_bp
    from portal.inbox.views import bp as inbox_bp
    from portal.notifications.views import bp as notifications_bp
    from portal.operations.views import bp as operations_bp
    from portal.orgchart.views import bp as orgchart_bp
    from portal.web.health import bp as health_bp

    app.register_blueprint(home_bp)
    app.register_blueprint(audit_bp)
    app.register_blueprint(accounts_bp)
    app.register_blueprint(account_bp)
    app.register_blueprint(invitations_bp)
    app.register_blueprint(members_bp)
    app.register_blueprint(settings_bp)
    app.register_blueprint(orgchart_bp)
    app.register_blueprint(routing_bp)
    app.register_blueprint(flows_bp)
    app.register_blueprint(flows_api_bp)
    app.register_blueprint(documents_bp)
    app.register_blueprint(delegations_bp)
    app.register_blueprint(notifications_bp)
    app.register_blueprint(operations_bp)
    app.register_blueprint(inbox_bp)
    app.register_blueprint(schema_bp)
    app.register_blueprint(health_bp)
