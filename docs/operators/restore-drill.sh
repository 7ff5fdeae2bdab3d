#!/usr/bin/env bash
# Restore drill (docs/operators/backup.md): a deployment on PostgreSQL gets an organization and an API key;
# it is backed up the way backup.md says (pg_dump + DATA_DIR/secret.key), restored into a fresh database
# with a fresh DATA_DIR, and a server on the restored copy must accept the old API key (GET /v1/me: 200).
# Then the control: the same database with a *new* secret.key does not start (the database records the
# secret's fingerprint), and once the new secret is adopted (ACCEPT_NEW_SECRET_KEY) the old key gets 401,
# which shows what the key file is worth. Run from the repository root; it touches nothing but the two databases it creates
# (dropped at the end) and a temporary folder.
#
#   PG_SERVER_URL=postgres://postgres@127.0.0.1:5432 docs/operators/restore-drill.sh
#
# Needs pg_dump, pg_restore and psql of the server's major version or later, curl, and Node.
set -euo pipefail

PG_SERVER_URL=${PG_SERVER_URL:-postgres://postgres@127.0.0.1:5432}
SUFFIX="$(date +%s)_$$"
SRC_DB="cf_drill_src_$SUFFIX"
DST_DB="cf_drill_dst_$SUFFIX"
WORK=$(mktemp -d)
SERVER_PID=

cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  psql -q "$PG_SERVER_URL/postgres" -c "DROP DATABASE IF EXISTS $SRC_DB WITH (FORCE)" \
    -c "DROP DATABASE IF EXISTS $DST_DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

free_port() { node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# Starts the service on DATABASE_URL=$1 with DATA_DIR=$2 and waits until it is ready; sets PORT and SERVER_PID.
start_server() {
  PORT=$(free_port)
  DATABASE_URL="$1" DATA_DIR="$2" PORT="$PORT" HOST=127.0.0.1 WORKER_THREADS=0 JOBS_ENABLED=false \
    WEBHOOK_DELIVERY_ENABLED=false LOG_LEVEL=warn npm start >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 240); do
    if curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$WORK/server.log"; echo 'the server exited' >&2; exit 1; fi
    sleep 0.5
  done
  echo 'the server did not become ready in 120 s' >&2
  exit 1
}

stop_server() {
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}

# GET /v1/me with the key: prints the HTTP status.
me_status() {
  curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/me"
}

step "1. A deployment: database $SRC_DB, DATA_DIR $WORK/data (secret.key generated on first use)"
psql -q "$PG_SERVER_URL/postgres" -c "CREATE DATABASE $SRC_DB"
KEY=$(DATABASE_URL="$PG_SERVER_URL/$SRC_DB" DATA_DIR="$WORK/data" npm run -s cli -- bootstrap --org drill --json |
  node -e "let s='';process.stdin.on('data',(d)=>(s+=d)).on('end',()=>console.log(JSON.parse(s).api_key.secret))")
echo "organization drill, admin API key ${KEY:0:12}…"

step '2. Back up: pg_dump (custom format) and DATA_DIR/secret.key'
mkdir -p "$WORK/backup"
pg_dump --format=custom --file="$WORK/backup/content-firewall.dump" "$PG_SERVER_URL/$SRC_DB"
cp -p "$WORK/data/secret.key" "$WORK/backup/secret.key"
ls -l "$WORK/backup"

step "3. Restore into a fresh database $DST_DB and a fresh DATA_DIR"
psql -q "$PG_SERVER_URL/postgres" -c "CREATE DATABASE $DST_DB"
pg_restore --no-owner --exit-on-error --dbname="$PG_SERVER_URL/$DST_DB" "$WORK/backup/content-firewall.dump"
mkdir -m 700 "$WORK/restored"
install -m 600 "$WORK/backup/secret.key" "$WORK/restored/secret.key"

step '4. A server on the restored copy: the old API key must authenticate'
start_server "$PG_SERVER_URL/$DST_DB" "$WORK/restored"
status=$(me_status)
stop_server
echo "GET /v1/me with the old key: $status"
[ "$status" = 200 ] || { echo 'FAILED: the restored deployment refused the key' >&2; exit 1; }

step '5. Control: the same database with a new secret.key: the server refuses to start'
PORT=$(free_port)
if DATABASE_URL="$PG_SERVER_URL/$DST_DB" DATA_DIR="$WORK/new-secret" PORT="$PORT" HOST=127.0.0.1 WORKER_THREADS=0 \
  JOBS_ENABLED=false WEBHOOK_DELIVERY_ENABLED=false LOG_LEVEL=warn timeout 120 npm start >"$WORK/refused.log" 2>&1; then
  echo 'FAILED: the server started with a secret.key the database was not set up with' >&2
  exit 1
fi
grep -q 'not the one this database was set up with' "$WORK/refused.log" ||
  { cat "$WORK/refused.log"; echo 'FAILED: the refusal does not say why' >&2; exit 1; }
echo 'start with a new secret.key: refused (the database records a fingerprint of the secret)'

step '6. ACCEPT_NEW_SECRET_KEY=true adopts the new secret.key, and the old key is refused'
export ACCEPT_NEW_SECRET_KEY=true
start_server "$PG_SERVER_URL/$DST_DB" "$WORK/new-secret"
unset ACCEPT_NEW_SECRET_KEY
status=$(me_status)
stop_server
echo "GET /v1/me with the old key, new secret.key: $status"
[ "$status" = 401 ] || { echo "FAILED: expected 401 without the original secret.key, got $status" >&2; exit 1; }

step 'Restore drill passed'
