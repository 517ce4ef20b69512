"""Logs an operator can search: one line per event, one JSON object a line in
production (readable text in development), and every line of a request carrying its
request id, organization and member, every line of a job its job id.

The web layer says whom a request is about (``bind``) as it learns it; a worker's job
is found by RQ. Unexpected errors also go to the configured error hook
(``PORTAL_ERROR_HOOK``), so an error tracker plugs in without code.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO, Any

from portal.config import ConfigError

# Who and what the current request (or job) is about; empty outside one.
_CONTEXT: ContextVar[dict[str, Any]] = ContextVar("portal_log_context", default={})  # noqa: B039 - never mutated: replaced
CONTEXT_FIELDS = ("request_id", "org", "member", "job_id")


def bind(**values: Any) -> None:
    """Add to what every later line of this request (or job) carries."""
    _CONTEXT.set({**_CONTEXT.get(), **values})


@contextmanager
def bound(**values: Any) -> Iterator[None]:
    """``values`` on every line logged inside the block, and gone after it."""
    token = _CONTEXT.set({**_CONTEXT.get(), **values})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def unbind() -> None:
    """Forget the request's context (its end)."""
    _CONTEXT.set({})


def _current_job_id() -> str | None:
    try:
        from rq import get_current_job

        job = get_current_job()
    except Exception:  # no job here (or RQ cannot tell): the line goes out without one
        return None
    return job.id if job is not None else None


class ContextFilter(logging.Filter):
    """Puts the request's (or job's) context on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = _CONTEXT.get()
        for name in CONTEXT_FIELDS:
            setattr(record, name, context.get(name))
        if record.job_id is None:  # type: ignore[attr-defined]
            record.job_id = _current_job_id()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the
    context that is known, and the traceback of an error."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """For a person at a terminal: the time, level and logger, then the context."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s%(context)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        known = [(n, getattr(record, n, None)) for n in CONTEXT_FIELDS]
        shown = " ".join(f"{n}={v}" for n, v in known if v is not None)
        record.context = f" [{shown}]" if shown else ""
        return super().format(record)


class _PortalHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Ours, so that configuring again replaces it rather than doubling every line."""


def configure_logging(*, log_format: str, level: str, stream: IO[str] | None = None) -> None:
    """Send every logger's records at ``level`` and above to ``stream`` (stderr) as
    ``log_format`` ("json" or "text"), with the context filter."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _PortalHandler)]:
        root.removeHandler(handler)
    handler = _PortalHandler(stream or sys.stderr)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level)


ErrorHook = Callable[[BaseException, dict[str, Any]], object]


def load_error_hook(path: str) -> ErrorHook | None:
    """The function ``package.module:function`` names (``PORTAL_ERROR_HOOK``); None
    for an empty setting. One that cannot be found stops the process at start, naming
    the variable."""
    if not path:
        return None
    module, _, name = path.partition(":")
    try:
        hook = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"PORTAL_ERROR_HOOK {path!r} cannot be loaded: {exc}") from None
    if not callable(hook):
        raise ConfigError(f"PORTAL_ERROR_HOOK {path!r} is not a function")
    return hook  # type: ignore[no-any-return]


def report_error(hook: ErrorHook | None, error: BaseException) -> None:
    """Hand ``error`` and the current context to the hook; a hook that fails is logged,
    never allowed to turn one error into two."""
    if hook is None:
        return
    try:
        hook(error, {k: v for k, v in _CONTEXT.get().items() if v is not None})
    except Exception:
        logging.getLogger(__name__).exception("the error hook failed")
