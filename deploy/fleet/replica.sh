#!/bin/bash
# The replica of docker-compose.fleet.yml: on its first start, a base backup of the primary
# (pg_basebackup -R writes standby.signal and primary_conninfo), then a hot standby that streams
# the primary's write-ahead log.
set -euo pipefail
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h primary -U "$POSTGRES_USER" -d "$POSTGRES_DB"; do sleep 1; done
  mkdir -p "$PGDATA"
  PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup -h primary -U replicator -D "$PGDATA" \
    -R -X stream --checkpoint=fast
  chmod 700 "$PGDATA"
fi
exec postgres -c hot_standby=on
