#!/usr/bin/env bash
# The two roles the README's "Running in production" describes, run by the postgres
# image once, when its data volume is first created: the schema owner, who runs
# `portal db upgrade`, and the application's role, which owns nothing and cannot bypass
# row-level security (the migration grants it exactly the table privileges it needs).
# The passwords come from COUNTERSIGN_OWNER_PASSWORD and COUNTERSIGN_APP_PASSWORD.
set -eo pipefail

: "${COUNTERSIGN_OWNER_PASSWORD:?set COUNTERSIGN_OWNER_PASSWORD}"
: "${COUNTERSIGN_APP_PASSWORD:?set COUNTERSIGN_APP_PASSWORD}"

psql --username "$POSTGRES_USER" --dbname postgres \
  --set ON_ERROR_STOP=1 \
  --set owner_password="$COUNTERSIGN_OWNER_PASSWORD" \
  --set app_password="$COUNTERSIGN_APP_PASSWORD" <<'SQL'
CREATE ROLE countersign_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE countersign_app LOGIN PASSWORD :'app_password' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
CREATE DATABASE countersign OWNER countersign_owner;
\connect countersign
ALTER SCHEMA public OWNER TO countersign_owner;
SQL
