#!/bin/bash
# Run once by the postgres image on the primary's first start (docker-entrypoint-initdb.d): a
# role for the replica's streaming replication, allowed from the compose network.
set -euo pipefail
# From standard input, so that psql quotes the password (:'password'); -c would not.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  --set=password="$REPLICATION_PASSWORD" <<'SQL'
create role replicator with replication login password :'password';
SQL
echo 'host replication replicator all scram-sha-256' >> "$PGDATA/pg_hba.conf"
