#!/bin/sh
# The soak (docs/operations.md#soak): two replicas on a fresh PostgreSQL database behind a TCP
# proxy, people, bots of every level in every variant, clocks, webhooks, rematches, autopilot;
# a replica killed and restarted twice, the database connections cut once; checks and a
# report. Not part of CI.
#
#   bench/soak/run.sh            # about ten minutes
#   SOAK_SECONDS=60 bench/soak/run.sh   # a quick try
#
# PGURL names a PostgreSQL server to make the fresh database on (default the local one);
# BINARY a built `continental` (default: `cargo build` here, debug).
set -eu
cd "$(dirname "$0")/../.."
PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432}
SECONDS_=${SOAK_SECONDS:-600}
TABLES=${SOAK_TABLES:-16}
if [ -z "${BINARY:-}" ]; then
  cargo build -p continental --bin continental
  BINARY=${CARGO_TARGET_DIR:-target}/debug/continental
fi
DB=soak_$(date +%s)
psql "$PGURL/postgres" -qc "CREATE DATABASE $DB"
PORT=$(echo "$PGURL" | sed -n 's/.*:\([0-9][0-9]*\)$/\1/p')
python3 bench/soak/soak.py --binary "$BINARY" --database "$PGURL/$DB" --pg-port "${PORT:-5432}" \
  --seconds "$SECONDS_" --tables "$TABLES" --logdir "/tmp/$DB"
status=$?
echo "database $DB kept for inspection; logs in /tmp/$DB"
exit $status
