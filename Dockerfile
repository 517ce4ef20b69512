# Countersign's image: one image for every role. The default command serves the web;
# the same image runs `portal db upgrade`, `portal worker`, `portal worker --queue sweep`
# and `portal scheduler` (deploy/compose.yaml shows each).
#
#   docker build -t countersign:0.1.0 .
#
# Needs BuildKit (the default builder since Docker 23) for the RUN --mount lines.

# --- build: the wheel, from this checkout -------------------------------------------------
FROM python:3.11-slim-bookworm AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src
COPY pyproject.toml setup.py README.md constraints.txt ./
COPY portal ./portal

# The build backend (setuptools) and babel, which compiles the catalogues into the
# wheel (babel at the version constraints.txt pins, setuptools in the range pyproject.toml
# asks for); then the wheel alone, as `make wheel`.
RUN pip install -c constraints.txt "setuptools>=70.1,<81" babel \
 && pip wheel --no-deps --no-build-isolation -w /dist .

# --- runtime ------------------------------------------------------------------------------
FROM python:3.11-slim-bookworm AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PATH=/opt/countersign/bin:$PATH \
    PORTAL_ENV=production \
    PORTAL_INSTANCE_DIR=/var/lib/countersign

# The service account: no password, no login shell, owner of its instance directory
# and of nothing else (the virtualenv and /app stay root's, read-only to it).
RUN groupadd --system --gid 10001 countersign \
 && useradd --system --uid 10001 --gid countersign --no-create-home \
        --home-dir /var/lib/countersign --shell /usr/sbin/nologin countersign \
 && install -d -o countersign -g countersign -m 0750 /var/lib/countersign

# The wheel and every dependency at the version constraints.txt pins. Every dependency
# ships a wheel for Linux (psycopg[binary] among them): no compiler, no apt-get.
RUN --mount=type=bind,from=build,source=/dist,target=/tmp/dist \
    --mount=type=bind,source=constraints.txt,target=/tmp/constraints.txt \
    python -m venv /opt/countersign \
 && /opt/countersign/bin/pip install -c /tmp/constraints.txt /tmp/dist/countersign-*.whl \
 && /opt/countersign/bin/portal --version

WORKDIR /app
COPY gunicorn.conf.py /app/gunicorn.conf.py

USER 10001:10001

EXPOSE 8000

# Liveness of a web container: /healthz answers 200 while the database and Redis do.
# Worker, sweeper and scheduler containers serve no HTTP: turn this off for them
# (compose: `healthcheck: disable: true`).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ.get('PORTAL_WEB_BIND', '0.0.0.0:8000').rsplit(':', 1)[-1]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]

# gunicorn stops gracefully on TERM (requests under way get graceful_timeout); RQ's
# worker finishes its current job on TERM.
STOPSIGNAL SIGTERM

CMD ["gunicorn", "-c", "/app/gunicorn.conf.py", "portal.app:create_app()"]
