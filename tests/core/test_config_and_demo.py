"""Configuration defaults that matter for safety, and the demo organization's seeding."""

from __future__ import annotations

import pytest

from portal.config import ConfigError, Settings, resolve_secret_key


def test_the_demo_secret_key_is_generated_once_and_kept(tmp_path):
    settings = Settings(instance_dir=tmp_path)
    first = resolve_secret_key(settings)
    assert len(first) >= 40
    assert resolve_secret_key(settings) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_production_refuses_to_start_without_a_configured_secret_key(tmp_path):
    key = "k" * 40
    assert (
        resolve_secret_key(Settings(env="production", instance_dir=tmp_path, secret_key=key)) == key
    )
    with pytest.raises(RuntimeError, match="PORTAL_SECRET_KEY"):
        resolve_secret_key(Settings(env="production", instance_dir=tmp_path))
    with pytest.raises(ConfigError, match="PORTAL_SECRET_KEY must be at least 32"):
        resolve_secret_key(Settings(env="production", instance_dir=tmp_path, secret_key="short"))


def test_settings_come_from_the_environment_with_safe_defaults(tmp_path):
    defaults = Settings.from_env({"PORTAL_INSTANCE_DIR": str(tmp_path)})
    assert defaults.database_url == f"sqlite:///{tmp_path / 'portal.sqlite3'}"
    assert defaults.embedded_redis and defaults.embedded_worker and not defaults.secure_cookies
    production = Settings.from_env(PRODUCTION)
    assert production.migrate_database_url == production.database_url
    assert production.secure_cookies and not production.embedded_worker
    assert production.smtp_host == "smtp.example.com" and production.smtp_security == "starttls"


PRODUCTION = {
    "PORTAL_ENV": "production",
    "PORTAL_DATABASE_URL": "postgresql+psycopg://app@db/countersign",
    "PORTAL_REDIS_URL": "redis://redis:6379/0",
    "PORTAL_SMTP_HOST": "smtp.example.com",
    "PORTAL_BASE_URL": "https://countersign.example.com",
}


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PORTAL_ENV", "prod", "PORTAL_ENV must be one of development, production, test"),
        ("PORTAL_DATABASE_URL", "", "PORTAL_DATABASE_URL must name PostgreSQL"),
        ("PORTAL_DATABASE_URL", "sqlite:///x.db", "PORTAL_DATABASE_URL must name PostgreSQL"),
        ("PORTAL_REDIS_URL", "", "PORTAL_REDIS_URL must be set"),
        ("PORTAL_SMTP_HOST", "", "PORTAL_SMTP_HOST must be set"),
        ("PORTAL_BASE_URL", "", "PORTAL_BASE_URL must be set"),
        ("PORTAL_BASE_URL", "http://countersign.example.com", "must be an https://"),
        ("PORTAL_BASE_URL", "countersign.example.com", "PORTAL_BASE_URL must be an http(s)"),
        ("PORTAL_DB_POOL_SIZE", "five", "PORTAL_DB_POOL_SIZE must be a whole number from 1"),
        ("PORTAL_DB_POOL_SIZE", "٥", "PORTAL_DB_POOL_SIZE must be a whole number"),
        ("PORTAL_SMTP_PORT", "70000", "PORTAL_SMTP_PORT must be a whole number from 1 to 65535"),
        ("PORTAL_SMTP_SECURITY", "ssl", "PORTAL_SMTP_SECURITY must be one of none, starttls, tls"),
        ("PORTAL_SECURE_COOKIES", "maybe", "PORTAL_SECURE_COOKIES must be on or off"),
        ("PORTAL_DEFAULT_LOCALE", "fr", "PORTAL_DEFAULT_LOCALE must be one of en, zh, ms"),
        ("PORTAL_TRUSTED_PROXIES", "-1", "PORTAL_TRUSTED_PROXIES must be a whole number"),
    ],
)
def test_a_bad_setting_stops_the_start_naming_its_variable(variable, value, message):
    assert Settings.from_env(PRODUCTION).is_production  # the complete set starts
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({**PRODUCTION, variable: value})
    assert message in str(refused.value)


def test_outside_production_the_embedded_services_are_the_default(tmp_path):
    development = Settings.from_env({"PORTAL_INSTANCE_DIR": str(tmp_path)})
    assert development.env == "development" and not development.is_postgres
    assert development.mail_directory == tmp_path / "mail" and not development.smtp_host


def test_demo_seeding_builds_acme_once_and_then_leaves_it_alone(app):
    from portal.accounts import queries as account_queries
    from portal.accounts import services
    from portal.demo import DEMO_PASSWORD, PEOPLE, seed_demo
    from portal.domain.actor import SystemActor
    from portal.flows import services as flows
    from portal.orgchart.services import get_chart

    assert seed_demo() is True
    org = account_queries.find_organization("acme")
    assert org is not None
    system = SystemActor(org_id=org.id, org_slug=org.slug)
    members = account_queries.list_members(system)
    assert len(members) == len(PEOPLE) == 13
    chart = get_chart(system)
    assert not chart.vacant_positions and not chart.members_without_primary
    assert not chart.units_without_head
    # The demo organization starts with the seeded flows, every one ready to route.
    assert [(f.kind, f.current_version) for f in flows.list_flows(system)] == [
        ("expense_claim", 1),
        ("leave_request", 1),
        ("purchase_request", 1),
    ]
    assert flows.flow_readiness(system) == []
    services.deactivate_member(system, members[-1].id)  # an admin's edit…

    assert seed_demo() is False  # …survives the next start
    assert not account_queries.get_member(system, members[-1].id).active
    assert account_queries.find_user(PEOPLE[0].email) is not None
    assert DEMO_PASSWORD
