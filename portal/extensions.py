"""Process-wide singletons. Configured by ``create_app``; nothing here queries."""

from __future__ import annotations

from flask_babel import Babel
from flask_login import LoginManager
from flask_wtf import CSRFProtect
from htmx_flask import Htmx

from portal.core.db import db

__all__ = ["babel", "csrf", "db", "htmx", "login_manager"]
login_manager = LoginManager()
csrf = CSRFProtect()
babel = Babel()
htmx = Htmx()
