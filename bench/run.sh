#!/usr/bin/env bash
# The benchmark harness: builds the service and the bare reference in release mode, then
# measures side by side, in one run, on this machine:
#   1. the meld validator vs the bare framework (wrk, alternating A B B A, servers pinned to
#      core 0 and wrk to core 1); then melds per second validated in batches of 100 and 1,000
#      through HTTP (POST /v1/melds/validate-batch, the melds of engine/benches/melds.txt) vs
#      the engine's own rate on the same melds in process (its criterion bench, on core 0);
#   2. game actions through HTTP on PostgreSQL (32 clients, each its own 4-seat may_i game)
#      vs the raw SQL of one action (pgbench -f move.sql), alternating;
#   3. the event streams: database transactions/s with STREAMS idle streams open, delivery
#      from one replica to streams on another (p99), SIGTERM time and memory with them open;
#      then one replica alone with nothing to do: its database's transactions/s with no stream
#      and with STREAMS idle streams (30 s each), and the same for BEFORE_BIN.
#   4. (PHASES with 4, and CITUS_DB naming an empty database of a Citus cluster on this machine,
#      with pg_stat_statements) game actions on the cluster vs on one PostgreSQL, alternating:
#      the statements the coordinator relays per action, and each node's CPU per action.
#   5. (PHASES with 5) a person's draw or discard (p99) at a table of three hard bots vs at a
#      table of four people who play at the same pace, and at full speed, 8 clients, 20 s each,
#      alternating, on PostgreSQL.
#   6. (PHASES with 6) game actions as in part 2 with traces exported to a collector that is
#      down (OTEL_EXPORTER_OTLP_ENDPOINT at a closed port) vs with export off, alternating:
#      a dead collector must cost the actions nothing (docs/operations.md#traces).
#   7. (PHASES with 7) rating a finished game, as the rating pass does (the claim, then the
#      rating's transaction and the changes written into the game), on SQLite and on
#      PostgreSQL: `cargo bench -p continental --bench rating_pass` (api/benches/rating_pass.rs),
#      GAMES finished rated games (default 200) made first, unmeasured.
#   8. (PHASES with 8) leaderboards at BOARD_PLAYERS (default 1,000,000) rated players of one
#      tenant, made by SQL: the first page, a page at depth DEEP (default 900,000) and a
#      player's rank with the page around them, at the database (EXPLAIN ANALYZE) and through
#      HTTP, and the same for BEFORE_BIN where it has the query; then a player's reads (their
#      profile, their games) at BOARD_GAMES (500,000) games, the same two ways (bench/board.sh).
#   9. (PHASES with 9) webhooks, on PostgreSQL: the bench's own receiver (a thread of the bench
#      answering 204 at once), WEBHOOK_GAMES (1,000) two-seat games posting to it; the time from
#      an action sent to each of its events received (p50, p99) at WEBHOOK_RATE (300) actions a
#      second over the games for 20 s, then the rate at which WEBHOOK_BACKLOG (100) more
#      deliveries per game, queued at once, arrive; each game's order checked. With BEFORE_BIN,
#      the same against that build, one after the other.
#   0. (PHASES with 0) quick play with a studio's waiting room full (bench/quickplay.py): 10,000
#      waiting tickets in 2,000 pools on PostgreSQL, the idle replica's database transactions a
#      second, and a new pair's time to a game (p50, p99 over 50 pairs of another studio); with
#      BEFORE_BIN, the build before on a database of its own, one after the other.
#   a. (PHASES with a) an open server's CPU with abandoned tables (bench/abandoned.py), on
#      PostgreSQL: a server without server keys, ABANDONED_TABLES (400) tables made at once
#      (`contract_7`, one person and three bots, `turn_seconds` 5, `autopilot_after_timeouts` 1,
#      nobody plays), then over 70 s the server's CPU (user and system, /proc/<pid>/stat) and
#      the lateness of another table's 5 s turn clock (a person's table whose every turn times
#      out: from each deadline to its `timed_out` event), ABANDONED_ROUNDS (2) rounds; with
#      BEFORE_BIN, the build before in the same rounds, each on a database of its own.
#   t. (PHASES with t) a tournament (bench/tournament.py), on PostgreSQL: ENTRANTS (10,000)
#      players entered in a duplicate `may_i` tournament of tables of four; from its start, the
#      time until every table of round 1 is made and every entrant's seat token has been read
#      through HTTP; another studio's action p99 alone and while the round starts; then round
#      1's standings (made by SQL) at the database (EXPLAIN ANALYZE, median of 5) and through
#      HTTP (median of 20): the first page, a deep page, a player's rank with the page around.
# With BEFORE_BIN naming another build of the service (say, of an older commit, built with
# `cargo build --release` in a worktree of its own), parts 1 and 2 measure it too, in the same
# rounds and against the same references, its turn alternating with this build's; parts 0, 3's
# idle replica, 8, 9 and a too. With SERVICE_BIN naming a build of the service (a debug one, say,
# to try a part quickly), parts 0, a and t measure it instead of building the release one (part
# t then needs BENCH_BIN, a build of continental-bench).
# Usage: bench/run.sh   (env: PGURL=postgres://postgres@127.0.0.1:5432, STREAMS=1000, ROUNDS=2,
#                       PHASES=123 to choose the parts, CITUS_DB for part 4, BEFORE_BIN for
#                       parts 1, 2, 3 (the idle replica), 0, 8, 9 and a, SERVICE_BIN for parts 0,
#                       a and t, BENCH_BIN for part t, GAMES for part 7, BOARD_PLAYERS and DEEP
#                       for part 8, ABANDONED_TABLES and ABANDONED_ROUNDS for part a, ENTRANTS
#                       (and bench/tournament.py's variables) for part t,
#                       RUST_LOG for the servers' log level)
set -euo pipefail
cd "$(dirname "$0")/.."
PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432}
STREAMS=${STREAMS:-1000}
ROUNDS=${ROUNDS:-2}
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

need() { command -v "$1" >/dev/null || { echo "installing $2"; apt-get install -y "$2" >/dev/null; }; }
need wrk wrk
need pgbench postgresql-client
need psql postgresql-client
need taskset util-linux

PHASES=${PHASES:-123}
if [[ -n ${SERVICE_BIN:-} ]]; then
    cp "$SERVICE_BIN" "$WORK/continental"
elif [[ $PHASES == *[0-689at]* ]]; then
echo "== building (release)"
cargo build --release -q -p continental -p continental-bench
# Copies: another build may replace the shared binaries while this runs.
cp "$TARGET/release/continental" "$TARGET/release/continental-bench" "$WORK/"
fi
if [[ $PHASES == *1* ]]; then
    CARGO_TARGET_DIR="$TARGET/hello" cargo build --release -q --manifest-path bench/hello/Cargo.toml
    cp "$TARGET/hello/release/hello-ref" "$WORK/"
fi
BEFORE=${BEFORE_BIN:+$WORK/continental-before}
if [[ -n $BEFORE ]]; then cp "$BEFORE_BIN" "$BEFORE"; fi

wait_port() { for _ in $(seq 200); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }
psql_admin() { psql "$PGURL/postgres" -qAtc "$1" >/dev/null; }

# The machine's load, to read each figure by: other work on the cores moves them all.
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; }
# CPU time a process has used so far (user and system, all threads), in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

BATCH100=(); BATCH1000=(); ENGINE_RATE=()
BARE_RPS=(); BARE_P99=(); BARE_CPU=(); VAL_RPS=(); VAL_P99=(); VAL_CPU=()
SQL_TPS=(); SQL_P99=(); ACT_RPS=(); ACT_P99=(); ACT_CPU=(); STREAM_LINE=
OLD_VAL_RPS=(); OLD_VAL_P99=(); OLD_VAL_CPU=(); OLD_ACT_RPS=(); OLD_ACT_P99=(); OLD_ACT_CPU=()
BOTS_P99=(); BOTS_RATE=(); PACED_P99=(); PACED_RATE=(); PEOPLE_P99=(); PEOPLE_RATE=()
OFF_RPS=(); OFF_P99=(); DEAD_RPS=(); DEAD_P99=(); DEAD_DROPPED=
BOARD_ROWS=()
MATCH_LINE=; OLD_MATCH_LINE=; IDLE_LINE=; OLD_IDLE_LINE=
if [[ $PHASES == *1* ]]; then
echo "== 1. validator vs bare framework (wrk -t2 -c64 -d5s, servers on core 0, wrk on core 1)"
BIND=127.0.0.1:28080 taskset -c 0 "$WORK/hello-ref" & PIDS+=($!)
CONTINENTAL_BIND=127.0.0.1:28081 DATABASE_URL="sqlite:$WORK/validator.db" taskset -c 0 "$WORK/continental" >"$WORK/validator.log" 2>&1 & PIDS+=($!)
wait_port 28080; wait_port 28081
if [[ -n $BEFORE ]]; then
    CONTINENTAL_BIND=127.0.0.1:28087 DATABASE_URL="sqlite:$WORK/validator-before.db" taskset -c 0 "$BEFORE" >"$WORK/validator-before.log" 2>&1 & PIDS+=($!)
    wait_port 28087
fi
wrk_run() { # url pid [script path connections] -> "rps p99_ms cpu_us_per_request"
    local before after
    before=$(cpu_ticks "$2")
    taskset -c 1 wrk -t2 -c"${5:-64}" -d5s --latency -s "${3:-bench/post.lua}" "$1${4:-/v1/melds/validate}" >"$WORK/wrk.out"
    after=$(cpu_ticks "$2")
    awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" '
        /requests in/ { n = $1 }
        /Requests\/sec/ { rps = $2 }
        /^ +99%/ { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; p99 = v }
        END { printf "%.0f %.2f %.1f\n", rps, p99, n ? ticks * 1e6 / hz / n : 0 }' "$WORK/wrk.out"
}
# Both warmed up first, unmeasured: a fresh process pays for its first pages, its allocator's
# arenas and its caches in its first seconds under load.
for port in 28080 28081 ${BEFORE:+28087}; do
    taskset -c 1 wrk -t2 -c64 -d3s -s bench/post.lua "http://127.0.0.1:$port/v1/melds/validate" >/dev/null
done
bare_run() { read -r a b c < <(wrk_run http://127.0.0.1:28080 "${PIDS[0]}"); BARE_RPS+=("$a"); BARE_P99+=("$b"); BARE_CPU+=("$c"); }
validator_run() { read -r a b c < <(wrk_run http://127.0.0.1:28081 "${PIDS[1]}"); VAL_RPS+=("$a"); VAL_P99+=("$b"); VAL_CPU+=("$c"); }
before_validator_run() {
    [[ -n $BEFORE ]] || return 0
    read -r a b c < <(wrk_run http://127.0.0.1:28087 "${PIDS[2]}"); OLD_VAL_RPS+=("$a"); OLD_VAL_P99+=("$b"); OLD_VAL_CPU+=("$c")
}
for r in $(seq "$ROUNDS"); do
    # A B, then B A: a machine that slows or speeds up during the run favours neither.
    if (( r % 2 )); then bare_run; validator_run; before_validator_run; else before_validator_run; validator_run; bare_run; fi
    echo "   round $r: bare ${BARE_RPS[-1]} req/s (p99 ${BARE_P99[-1]} ms, ${BARE_CPU[-1]} us CPU/request), validator ${VAL_RPS[-1]} req/s (p99 ${VAL_P99[-1]} ms, ${VAL_CPU[-1]} us CPU/request), ratio $(awk -v a="${VAL_RPS[-1]}" -v b="${BARE_RPS[-1]}" 'BEGIN { printf "%.2f", a / b }')  [$(load)]"
    if [[ -n $BEFORE ]]; then
        echo "            before: validator ${OLD_VAL_RPS[-1]} req/s (p99 ${OLD_VAL_P99[-1]} ms, ${OLD_VAL_CPU[-1]} us CPU/request), ratio $(awk -v a="${OLD_VAL_RPS[-1]}" -v b="${BARE_RPS[-1]}" 'BEGIN { printf "%.2f", a / b }')"
    fi
done
# Batches: the first 100 and all 1,000 melds of the engine's bench corpus, as one body each.
for n in 100 1000; do
    head -n "$n" engine/benches/melds.txt | awk -v q='"' '
        BEGIN { printf "{\"variant\":\"may_i\",\"melds\":[" }
        { printf "%s{\"cards\":[", (NR > 1 ? "," : ""); for (i = 1; i <= NF; i++) printf "%s%s%s%s", (i > 1 ? "," : ""), q, $i, q; printf "]}" }
        END { printf "]}" }' >"$WORK/batch$n.json"
done
batch_run() { # size -> melds/s through HTTP
    local a b c
    read -r a b c < <(BODY="$WORK/batch$1.json" wrk_run http://127.0.0.1:28081 "${PIDS[1]}" bench/batch.lua /v1/melds/validate-batch 8)
    awk -v r="$a" -v n="$1" 'BEGIN { printf "%.0f", r * n }'
}
engine_run() { # -> melds/s in process: criterion's time for the 1,000 melds, on the servers' core
    taskset -c 0 cargo bench -q -p continental-engine --bench engine -- --warm-up-time 1 --measurement-time 4 \
        --output-format bencher 'batch' 2>/dev/null |
        awk '/bench:/ { gsub(",", "", $0); for (i = 1; i <= NF; i++) if ($i == "bench:") ns = $(i + 1) } END { printf "%.0f", ns ? 1000 / (ns * 1e-9) : 0 }'
}
echo "== 1b. melds/s validated in batches of 100 and 1,000 (wrk -t2 -c8 -d5s) vs the engine in process (criterion)"
cargo bench -q -p continental-engine --bench engine --no-run 2>/dev/null
BODY="$WORK/batch1000.json" taskset -c 1 wrk -t2 -c8 -d3s -s bench/batch.lua http://127.0.0.1:28081/v1/melds/validate-batch >/dev/null
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then
        BATCH100+=("$(batch_run 100)"); BATCH1000+=("$(batch_run 1000)"); ENGINE_RATE+=("$(engine_run)")
    else
        ENGINE_RATE+=("$(engine_run)"); BATCH1000+=("$(batch_run 1000)"); BATCH100+=("$(batch_run 100)")
    fi
    echo "   round $r: batches of 100 ${BATCH100[-1]} melds/s, of 1,000 ${BATCH1000[-1]} melds/s, engine in process ${ENGINE_RATE[-1]} melds/s, ratio $(awk -v a="${BATCH1000[-1]}" -v b="${ENGINE_RATE[-1]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }')  [$(load)]"
done
kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
fi

psql_admin "DROP DATABASE IF EXISTS continental_bench WITH (FORCE)"
psql_admin "CREATE DATABASE continental_bench"
if [[ $PHASES == *2* ]]; then
echo "== 2. game actions through HTTP vs raw SQL (32 clients, 8 s each, alternating)"
psql_admin "DROP DATABASE IF EXISTS continental_ref WITH (FORCE)"
psql_admin "CREATE DATABASE continental_ref"
psql "$PGURL/continental_ref" -q -f bench/setup.sql >/dev/null
CONTINENTAL_BIND=127.0.0.1:28081 DATABASE_URL="$PGURL/continental_bench" "$WORK/continental" >"$WORK/games.log" 2>&1 & PIDS+=($!)
wait_port 28081
if [[ -n $BEFORE ]]; then
    # A database of its own: the other build's migrations may differ.
    psql_admin "DROP DATABASE IF EXISTS continental_before WITH (FORCE)"
    psql_admin "CREATE DATABASE continental_before"
    CONTINENTAL_BIND=127.0.0.1:28088 DATABASE_URL="$PGURL/continental_before" "$BEFORE" >"$WORK/games-before.log" 2>&1 & PIDS+=($!)
    wait_port 28088
fi
pgbench_run() { # -> "tps p99_ms"
    rm -f "$WORK"/pgb*
    local tps
    tps=$(cd "$WORK" && pgbench -n -c 32 -j 2 -T 8 -l --log-prefix=pgb -f "$OLDPWD/bench/move.sql" "$PGURL/continental_ref" 2>/dev/null |
        awk '/^tps/ { print $3; exit }')
    local p99
    p99=$(cat "$WORK"/pgb* | awk '{ print $3 }' | sort -n | awk '{ a[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; printf "%.2f", a[i] / 1000 }')
    echo "$tps $p99"
}
games_run() { # url pid -> "actions/s p99_ms cpu_us_per_action RESULT-line"
    local before after line actions
    before=$(cpu_ticks "$2")
    line=$("$WORK/continental-bench" games "$1" 32 8 | grep '^RESULT')
    after=$(cpu_ticks "$2")
    actions=$(sed -E 's/.*actions=([0-9]+).*/\1/' <<<"$line")
    echo "$(sed -E 's/.*actions_per_s=([0-9.]+).*p99_ms=([0-9.]+).*/\1 \2/' <<<"$line")" \
        "$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$actions" 'BEGIN { printf "%.0f", n ? t * 1e6 / hz / n : 0 }')" "$line"
}
# Both builds warmed up first, unmeasured, as in part 1.
for port in 28081 ${BEFORE:+28088}; do "$WORK/continental-bench" games "http://127.0.0.1:$port" 32 3 >/dev/null; done
sql_run() { read -r a b < <(pgbench_run); SQL_TPS+=("$a"); SQL_P99+=("$b"); }
actions_run() { read -r a b c d < <(games_run http://127.0.0.1:28081 "${PIDS[0]}"); ACT_RPS+=("$a"); ACT_P99+=("$b"); ACT_CPU+=("$c"); LINE=$d; }
before_actions_run() {
    [[ -n $BEFORE ]] || return 0
    read -r a b c d < <(games_run http://127.0.0.1:28088 "${PIDS[1]}"); OLD_ACT_RPS+=("$a"); OLD_ACT_P99+=("$b"); OLD_ACT_CPU+=("$c"); OLD_LINE=$d
}
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then sql_run; actions_run; before_actions_run; else before_actions_run; actions_run; sql_run; fi
    echo "   round $r: raw SQL ${SQL_TPS[-1]} tx/s (p99 ${SQL_P99[-1]} ms), HTTP actions ${ACT_RPS[-1]}/s (p99 ${ACT_P99[-1]} ms, service ${ACT_CPU[-1]} us CPU/action)  [$(load)] [$LINE]"
    if [[ -n $BEFORE ]]; then
        echo "            before: HTTP actions ${OLD_ACT_RPS[-1]}/s (p99 ${OLD_ACT_P99[-1]} ms, service ${OLD_ACT_CPU[-1]} us CPU/action) [$OLD_LINE]"
    fi
done
kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
psql_admin "DROP DATABASE IF EXISTS continental_before WITH (FORCE)"
fi

if [[ $PHASES == *3* ]]; then
echo "== 3. $STREAMS streams on replica A of two (one PostgreSQL database)"
CONTINENTAL_BIND=127.0.0.1:28082 DATABASE_URL="$PGURL/continental_bench" "$WORK/continental" >"$WORK/a.log" 2>&1 & A=$!; PIDS+=($A)
CONTINENTAL_BIND=127.0.0.1:28083 DATABASE_URL="$PGURL/continental_bench" "$WORK/continental" >"$WORK/b.log" 2>&1 & PIDS+=($!)
wait_port 28082; wait_port 28083
STREAM_LINE=$("$WORK/continental-bench" streams http://127.0.0.1:28082 http://127.0.0.1:28083 "$A" continental_bench "$STREAMS" | grep '^RESULT')
wait "$A" 2>/dev/null || true
echo "   $STREAM_LINE"
kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; PIDS=()
idle_run() { # binary -> RESULT line: one replica alone, nothing to do, 0 then STREAMS streams
    psql_admin "DROP DATABASE IF EXISTS continental_idle WITH (FORCE)"
    psql_admin "CREATE DATABASE continental_idle"
    CONTINENTAL_BIND=127.0.0.1:28084 DATABASE_URL="$PGURL/continental_idle" "$1" >"$WORK/idle.log" 2>&1 & PIDS+=($!)
    wait_port 28084
    "$WORK/continental-bench" idle http://127.0.0.1:28084 continental_idle "$STREAMS" | grep '^RESULT'
    kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
    psql_admin "DROP DATABASE IF EXISTS continental_idle WITH (FORCE)"
}
echo "== 3b. an idle replica: its database's transactions/s with no stream and with $STREAMS idle streams"
IDLE_LINE=$(idle_run "$WORK/continental")
echo "   this build: $IDLE_LINE  [$(load)]"
if [[ -n $BEFORE ]]; then
    OLD_IDLE_LINE=$(idle_run "$BEFORE")
    echo "   before:     $OLD_IDLE_LINE  [$(load)]"
fi
fi
CITUS_RPS=(); CITUS_P99=(); SINGLE_RPS=(); SINGLE_P99=(); CITUS_STMTS=(); COORD_CPU=(); WORKER_CPU=(); CITUS_SVC_CPU=()
if [[ $PHASES == *4* ]]; then
: "${CITUS_DB:?phase 4 needs CITUS_DB: an empty database of a Citus cluster, with the citus extension and its workers added}"
echo "== 4. game actions on a Citus cluster vs one PostgreSQL (32 clients, 8 s each, alternating)"
# The same binary on each; the migrations distribute the tables on the cluster.
psql_admin "DROP DATABASE IF EXISTS continental_single WITH (FORCE)"
psql_admin "CREATE DATABASE continental_single"
psql "$CITUS_DB" -qAtc "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
CONTINENTAL_BIND=127.0.0.1:28084 DATABASE_URL="$PGURL/continental_single" "$WORK/continental" >"$WORK/single.log" 2>&1 & PIDS+=($!)
CONTINENTAL_BIND=127.0.0.1:28085 DATABASE_URL="$CITUS_DB" "$WORK/continental" >"$WORK/citus.log" 2>&1 & PIDS+=($!)
CITUS_SERVICE=$!
wait_port 28084; wait_port 28085
for port in 28084 28085; do "$WORK/continental-bench" games "http://127.0.0.1:$port" 32 3 >/dev/null; done
# Each node's CPU, read from /proc (the cluster runs on this machine): its postmaster's own and
# that of the backends it has reaped, and its live backends'.
NODES=$(psql "$CITUS_DB" -qAtc "SELECT nodename || ':' || nodeport FROM pg_dist_node WHERE noderole = 'primary' ORDER BY groupid")
POSTMASTERS=()
for node in $NODES; do
    dir=$(psql "${CITUS_DB%%@*}@$node/postgres" -qAtc "SHOW data_directory")
    POSTMASTERS+=("$(head -1 "$dir/postmaster.pid")")
done
node_ticks() { # postmaster pid -> clock ticks used by that server so far
    { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$1" '$1 == pm { t += $14 + $15 + $16 + $17 } $4 == pm { t += $14 + $15 } END { print t + 0 }'
}
# What the coordinator relays for the actions themselves: every statement of the service's
# database but the background passes (one a second, whatever the load), Citus's own upkeep and
# the reads of its metadata (where a game is: one per game and replica, relaying nothing).
statements() {
    psql "$CITUS_DB" -qAtc "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query !~* '(master_run_on_worker|pg_dist_|pg_prepared_xacts|waiting_pid|pg_stat_statements|citus_|pg_catalog)'"
}
actions_run() { # url -> "actions/s p99_ms actions"
    "$WORK/continental-bench" games "$1" 32 8 | grep '^RESULT' |
        sed -E 's/.*actions_per_s=([0-9.]+).*p99_ms=([0-9.]+).*actions=([0-9]+).*/\1 \2 \3/'
}
single_run() { read -r a b _ < <(actions_run http://127.0.0.1:28084); SINGLE_RPS+=("$a"); SINGLE_P99+=("$b"); }
citus_run() {
    psql "$CITUS_DB" -qAtc "SELECT pg_stat_statements_reset()" >/dev/null
    local before=() after=() svc_before svc_after i
    for pm in "${POSTMASTERS[@]}"; do before+=("$(node_ticks "$pm")"); done
    svc_before=$(cpu_ticks "$CITUS_SERVICE")
    read -r a b n < <(actions_run http://127.0.0.1:28085)
    for pm in "${POSTMASTERS[@]}"; do after+=("$(node_ticks "$pm")"); done
    svc_after=$(cpu_ticks "$CITUS_SERVICE")
    CITUS_RPS+=("$a"); CITUS_P99+=("$b")
    CITUS_STMTS+=("$(awk -v s="$(statements)" -v n="$n" 'BEGIN { printf "%.2f", n ? s / n : 0 }')")
    us() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" -v n="$n" 'BEGIN { printf "%.0f", n ? t * 1e6 / hz / n : 0 }'; }
    COORD_CPU+=("$(us $((after[0] - before[0])))")
    local workers=0
    for ((i = 1; i < ${#after[@]}; i++)); do workers=$((workers + after[i] - before[i])); done
    WORKER_CPU+=("$(us "$workers")")
    CITUS_SVC_CPU+=("$(us $((svc_after - svc_before)))")
}
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then single_run; citus_run; else citus_run; single_run; fi
    echo "   round $r: one PostgreSQL ${SINGLE_RPS[-1]} actions/s (p99 ${SINGLE_P99[-1]} ms), Citus ${CITUS_RPS[-1]} actions/s (p99 ${CITUS_P99[-1]} ms, ${CITUS_STMTS[-1]} statements relayed by the coordinator per action; CPU us/action: coordinator ${COORD_CPU[-1]}, workers ${WORKER_CPU[-1]}, service ${CITUS_SVC_CPU[-1]})  [$(load)]"
done
echo "   the coordinator's statements in the last round, per action:"
psql "$CITUS_DB" -qAtF ' ' -c "SELECT calls, left(regexp_replace(query, '\s+', ' ', 'g'), 90) FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY calls DESC LIMIT 8" | sed 's/^/     /'
kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
psql_admin "DROP DATABASE IF EXISTS continental_single WITH (FORCE)"
fi
if [[ $PHASES == *5* ]]; then
echo "== 5. a person's move at a table of three hard bots vs four people (8 clients, 20 s each, alternating)"
psql_admin "DROP DATABASE IF EXISTS continental_bots WITH (FORCE)"
psql_admin "CREATE DATABASE continental_bots"
CONTINENTAL_BIND=127.0.0.1:28086 DATABASE_URL="$PGURL/continental_bots" "$WORK/continental" >"$WORK/bots.log" 2>&1 & PIDS+=($!)
wait_port 28086
"$WORK/continental-bench" games http://127.0.0.1:28086 8 3 >/dev/null
# A person waits for three hard bots between two moves, so those tables send far fewer
# requests than tables of people playing flat out, and a lightly loaded server answers faster.
# Like with like: people who wait as long between their moves (the pace the bots allowed in
# the round's bots run), beside the same people at full speed.
table_run() { # mode -> "p99_ms actions_per_s"
    "$WORK/continental-bench" games http://127.0.0.1:28086 8 20 ${1:+"$1"} | grep '^RESULT' |
        sed -E 's/.*actions_per_s=([0-9.]+).*p99_ms=([0-9.]+).*/\2 \1/'
}
bots_run() { read -r a b < <(table_run hard-bots); BOTS_P99+=("$a"); BOTS_RATE+=("$b"); }
# Each of the 8 clients waits 8 / rate seconds between its moves: the bots' pace.
paced_run() { read -r a b < <(table_run "paced=$(awk -v r="${BOTS_RATE[-1]}" 'BEGIN { printf "%.0f", (r > 0 ? 8000 / r : 1000) }')"); PACED_P99+=("$a"); PACED_RATE+=("$b"); }
people_run() { read -r a b < <(table_run); PEOPLE_P99+=("$a"); PEOPLE_RATE+=("$b"); }
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then bots_run; paced_run; people_run; else people_run; paced_run; bots_run; fi
    echo "   round $r: p99 ${BOTS_P99[-1]} ms with three hard bots (${BOTS_RATE[-1]} moves/s), ${PACED_P99[-1]} ms with four people at that pace (${PACED_RATE[-1]} moves/s), ${PEOPLE_P99[-1]} ms with four people at full speed (${PEOPLE_RATE[-1]} moves/s)  [$(load)]"
done
kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
psql_admin "DROP DATABASE IF EXISTS continental_bots WITH (FORCE)"
fi
if [[ $PHASES == *6* ]]; then
echo "== 6. game actions with traces exported to a dead collector vs export off (32 clients, 8 s each, alternating)"
psql_admin "DROP DATABASE IF EXISTS continental_traced WITH (FORCE)"
psql_admin "CREATE DATABASE continental_traced"
# A database each, as alike as the runs make them; port 9 (discard) refuses connections here.
CONTINENTAL_BIND=127.0.0.1:28089 DATABASE_URL="$PGURL/continental_bench" "$WORK/continental" >"$WORK/off.log" 2>&1 & PIDS+=($!)
CONTINENTAL_BIND=127.0.0.1:28090 DATABASE_URL="$PGURL/continental_traced" OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9 \
    "$WORK/continental" >"$WORK/dead.log" 2>&1 & PIDS+=($!)
wait_port 28089; wait_port 28090
for port in 28089 28090; do "$WORK/continental-bench" games "http://127.0.0.1:$port" 32 3 >/dev/null; done
traced_run() { # url -> "actions/s p99_ms"
    "$WORK/continental-bench" games "$1" 32 8 | grep '^RESULT' | sed -E 's/.*actions_per_s=([0-9.]+).*p99_ms=([0-9.]+).*/\1 \2/'
}
off_run() { read -r a b < <(traced_run http://127.0.0.1:28089); OFF_RPS+=("$a"); OFF_P99+=("$b"); }
dead_run() { read -r a b < <(traced_run http://127.0.0.1:28090); DEAD_RPS+=("$a"); DEAD_P99+=("$b"); }
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then off_run; dead_run; else dead_run; off_run; fi
    echo "   round $r: export off ${OFF_RPS[-1]} actions/s (p99 ${OFF_P99[-1]} ms), dead collector ${DEAD_RPS[-1]} actions/s (p99 ${DEAD_P99[-1]} ms)  [$(load)]"
done
DEAD_DROPPED=$(curl -s http://127.0.0.1:28090/metrics | awk '/^continental_trace_spans_dropped_total/ { print $2 }')
kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
psql_admin "DROP DATABASE IF EXISTS continental_traced WITH (FORCE)"
fi
if [[ $PHASES == *0* ]]; then
echo "== 0. quick play: 10,000 waiting tickets in 2,000 pools, the idle replica's transactions/s and a new pair's time to a game"
quickplay_run() { # binary -> RESULT line
    psql_admin "DROP DATABASE IF EXISTS continental_match WITH (FORCE)"
    psql_admin "CREATE DATABASE continental_match"
    CONTINENTAL_BIND=127.0.0.1:28091 DATABASE_URL="$PGURL/continental_match" \
        CONTINENTAL_API_KEYS=studio:studio-secret-00000001,other:other-secret-000000001 \
        CONTINENTAL_MATCHMAKING_BOTS_AFTER_S=none "$1" >"$WORK/match.log" 2>&1 & PIDS+=($!)
    wait_port 28091
    python3 bench/quickplay.py http://127.0.0.1:28091 "$PGURL/continental_match" | grep '^RESULT'
    kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
    echo "   slow matching passes logged: $(grep -c 'slow matching pass' "$WORK/match.log" || true)" >&2
    psql_admin "DROP DATABASE IF EXISTS continental_match WITH (FORCE)"
}
MATCH_LINE=$(quickplay_run "$WORK/continental")
echo "   this build: $MATCH_LINE  [$(load)]"
if [[ -n $BEFORE ]]; then
    OLD_MATCH_LINE=$(quickplay_run "$BEFORE")
    echo "   before:     $OLD_MATCH_LINE  [$(load)]"
fi
fi
ABANDONED_LINES=(); ABANDONED_BEFORE_LINES=()
if [[ $PHASES == *a* ]]; then
echo "== a. an open server's CPU over 70 s after ${ABANDONED_TABLES:-400} abandoned tables, and another table's 5 s clock"
abandoned_run() { # binary port database -> its RESULT line
    psql_admin "DROP DATABASE IF EXISTS $3 WITH (FORCE)"
    psql_admin "CREATE DATABASE $3"
    # Open to anyone: no server keys, the default limit on tables of bots alone.
    CONTINENTAL_BIND=127.0.0.1:$2 DATABASE_URL="$PGURL/$3" "$1" >"$WORK/$3.log" 2>&1 &
    local pid=$!
    wait_port "$2"
    TABLES=${ABANDONED_TABLES:-400} python3 bench/abandoned.py "http://127.0.0.1:$2" "$pid" "$PGURL/$3" | grep '^RESULT' || true
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "   slow passes logged: $(grep -c 'slow pass' "$WORK/$3.log" || true)" >&2
    psql_admin "DROP DATABASE IF EXISTS $3 WITH (FORCE)"
}
for r in $(seq "${ABANDONED_ROUNDS:-2}"); do
    ABANDONED_LINES+=("$(abandoned_run "$WORK/continental" 28093 continental_abandoned)")
    echo "   round $r, this build: ${ABANDONED_LINES[-1]}  [$(load)]"
    if [[ -n $BEFORE ]]; then
        ABANDONED_BEFORE_LINES+=("$(abandoned_run "$BEFORE" 28094 continental_abandoned_before)")
        echo "            before:     ${ABANDONED_BEFORE_LINES[-1]}  [$(load)]"
    fi
done
fi
TOURNAMENT_LINE=; STANDINGS_ROW=
if [[ $PHASES == *t* ]]; then
need jq jq
echo "== t. a tournament of ${ENTRANTS:-10000} players: round 1's tables and seat tokens from the start, another studio's moves meanwhile, the standings"
psql_admin "DROP DATABASE IF EXISTS continental_cup WITH (FORCE)"
psql_admin "CREATE DATABASE continental_cup"
CONTINENTAL_BIND=127.0.0.1:28095 DATABASE_URL="$PGURL/continental_cup" \
    CONTINENTAL_API_KEYS=studio:studio-secret-00000001,other:other-secret-000000001 \
    "$WORK/continental" >"$WORK/cup.log" 2>&1 & PIDS+=($!)
wait_port 28095
python3 bench/tournament.py http://127.0.0.1:28095 "$PGURL/continental_cup" "${BENCH_BIN:-$WORK/continental-bench}" | tee "$WORK/cup.out"
TOURNAMENT_LINE=$(grep '^RESULT' "$WORK/cup.out" || true)
echo "   [$(load)]"
cup=$(sed -n 's/^TOURNAMENT //p' "$WORK/cup.out")
if [[ -n $cup ]]; then
    # The standings of round 1 as the round's close writes them, made by SQL (playing 2,500
    # tables out would take hours): every entrant once, in a shuffled order of players.
    n=${ENTRANTS:-10000}
    psql "$PGURL/continental_cup" -q -c "INSERT INTO tournament_standings (tournament_id, round, position, rank, player, name, score)
        SELECT '$cup', 1, i, i + 1, 'p' || ((i * 7919) % $n), 'Player', $n - i FROM generate_series(0, $n - 1) i;
        ANALYZE tournament_standings;" >/dev/null
    cup_ms() { # statement -> median of 5 execution times, ms
        for _ in 1 2 3 4 5; do
            psql "$PGURL/continental_cup" -qAt -c "EXPLAIN (ANALYZE, FORMAT JSON) $1" | jq '.[0]."Execution Time"'
        done | sort -g | sed -n 3p
    }
    cup_http_ms() { # path -> median of 20 GETs with the studio's key, ms
        for _ in $(seq 20); do
            curl -s -o /dev/null -w '%{time_total}\n' -H "X-Api-Key: studio-secret-00000001" "http://127.0.0.1:28095$1"
        done | sort -g | sed -n 10p | awk '{ printf "%.2f", $1 * 1000 }'
    }
    # The statements of store/tournaments.rs: a page from a position; a player's row.
    page="SELECT position, rank, player, name, score FROM tournament_standings WHERE tournament_id = '$cup' AND round = 1 AND position >="
    deep=$((n * 9 / 10))
    own="SELECT position, rank, player, name, score FROM tournament_standings WHERE tournament_id = '$cup' AND round = 1 AND player = 'p5000'"
    own_at=$(psql "$PGURL/continental_cup" -qAt -c "SELECT position FROM tournament_standings WHERE tournament_id = '$cup' AND round = 1 AND player = 'p5000'")
    around=$(awk -v a="$(cup_ms "$own")" -v b="$(cup_ms "$page $((own_at - 25)) ORDER BY position LIMIT 50")" 'BEGIN { printf "%.3f", a + b }')
    deep_cursor=$(curl -s -H "X-Api-Key: studio-secret-00000001" "http://127.0.0.1:28095/v1/tournaments/$cup/standings?limit=50" | jq -r .next_cursor)
    STANDINGS_ROW="$(cup_ms "$page 0 ORDER BY position LIMIT 50")|$(cup_ms "$page $deep ORDER BY position LIMIT 50")|$around|$(cup_http_ms "/v1/tournaments/$cup/standings?limit=50")|$(cup_http_ms "/v1/tournaments/$cup/standings?limit=50&cursor=$deep_cursor")|$(cup_http_ms "/v1/tournaments/$cup/standings?player=p5000&limit=50")"
    echo "   standings ms: database first page, page at $deep, a player's rank and the page around; HTTP first page, second page, a player's: ${STANDINGS_ROW//|/ }"
fi
kill "${PIDS[@]}"; wait "${PIDS[@]}" 2>/dev/null || true; PIDS=()
echo "   slow passes logged: $(grep -c 'slow pass' "$WORK/cup.log" || true)"
psql_admin "DROP DATABASE IF EXISTS continental_cup WITH (FORCE)"
fi
psql_admin "DROP DATABASE IF EXISTS continental_bench WITH (FORCE)"
psql_admin "DROP DATABASE IF EXISTS continental_ref WITH (FORCE)"
if [[ $PHASES == *8* ]]; then
    need jq jq
    # shellcheck source=bench/board.sh
    source bench/board.sh
fi
if [[ $PHASES == *7* ]]; then
echo "== 7. rating a finished game: the claim, then rate and write, on SQLite and PostgreSQL ($(load))"
PGURL=$PGURL cargo bench -q -p continental --bench rating_pass | tee "$WORK/rating.out"
RATING_LINES=$(cat "$WORK/rating.out")
fi

HOOKS_LINE=; HOOKS_BEFORE_LINE=
if [[ $PHASES == *9* ]]; then
echo "== 9. webhooks to the bench's receiver: ${WEBHOOK_GAMES:-1000} games, ${WEBHOOK_RATE:-300} actions/s for 20 s, then ${WEBHOOK_BACKLOG:-100} deliveries per game at once"
hooks_run() { # binary port database -> its RESULT line
    psql_admin "DROP DATABASE IF EXISTS $3 WITH (FORCE)"
    psql_admin "CREATE DATABASE $3"
    CONTINENTAL_BIND=127.0.0.1:$2 DATABASE_URL="$PGURL/$3" CONTINENTAL_WEBHOOK_ALLOW_PRIVATE=1 "$1" >"$WORK/$3.log" 2>&1 &
    local pid=$!
    wait_port "$2"
    "$WORK/continental-bench" webhooks "http://127.0.0.1:$2" "$3" "${WEBHOOK_GAMES:-1000}" 20 "${WEBHOOK_RATE:-300}" "${WEBHOOK_BACKLOG:-100}" | grep '^RESULT' || true
    kill "$pid"; wait "$pid" 2>/dev/null || true
    psql_admin "DROP DATABASE IF EXISTS $3 WITH (FORCE)"
}
HOOKS_LINE=$(hooks_run "$WORK/continental" 28091 continental_hooks)
echo "   this build: $HOOKS_LINE  [$(load)]"
if [[ -n $BEFORE ]]; then
    HOOKS_BEFORE_LINE=$(hooks_run "$BEFORE" 28092 continental_hooks_before)
    echo "   before:     $HOOKS_BEFORE_LINE  [$(load)]"
fi
fi

mean() { printf '%s\n' "$@" | awk 'NF { s += $1; n++ } END { if (n) printf "%.2f", s / n; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
field() { [[ -n $STREAM_LINE ]] && sed -E "s/.*$1=([0-9.]+).*/\1/" <<<"$STREAM_LINE" || echo -; }
BARE=$(mean "${BARE_RPS[@]}"); VAL=$(mean "${VAL_RPS[@]}")
SQL=$(mean "${SQL_TPS[@]}"); ACT=$(mean "${ACT_RPS[@]}")
echo
echo "== results (means of $ROUNDS alternating rounds; RUST_LOG=${RUST_LOG:-info}; $(load))"
row() { printf '%-46s %10s %10s %7s %9s\n' "$@"; }
row figure service reference ratio target
row "validator req/s (wrk)" "$VAL" "$BARE" "$(ratio "$VAL" "$BARE")" ">= 0.80"
row "validator p99 ms" "$(mean "${VAL_P99[@]}")" "$(mean "${BARE_P99[@]}")" "" ""
row "validator CPU us/request (server)" "$(mean "${VAL_CPU[@]}")" "$(mean "${BARE_CPU[@]}")" "$(ratio "$(mean "${BARE_CPU[@]}")" "$(mean "${VAL_CPU[@]}")")" ""
row "melds/s in batches of 100 vs the engine" "$(mean "${BATCH100[@]}")" "$(mean "${ENGINE_RATE[@]}")" "$(ratio "$(mean "${BATCH100[@]}")" "$(mean "${ENGINE_RATE[@]}")")" ""
row "melds/s in batches of 1,000 vs the engine" "$(mean "${BATCH1000[@]}")" "$(mean "${ENGINE_RATE[@]}")" "$(ratio "$(mean "${BATCH1000[@]}")" "$(mean "${ENGINE_RATE[@]}")")" ">= 0.50"
row "actions/s at 32 clients vs move.sql tx/s" "$ACT" "$SQL" "$(ratio "$ACT" "$SQL")" ">= 0.85"
row "action p99 ms (pgbench: per transaction)" "$(mean "${ACT_P99[@]}")" "$(mean "${SQL_P99[@]}")" "$(ratio "$(mean "${ACT_P99[@]}")" "$(mean "${SQL_P99[@]}")")" "<= 1"
row "service CPU us/action" "$(mean "${ACT_CPU[@]}")" "" "" ""
if [[ -n $BEFORE ]]; then
    echo "   the build before ($BEFORE_BIN), same rounds, same references:"
    row "validator req/s (wrk), before" "$(mean "${OLD_VAL_RPS[@]}")" "$BARE" "$(ratio "$(mean "${OLD_VAL_RPS[@]}")" "$BARE")" ">= 0.80"
    row "validator p99 ms, before" "$(mean "${OLD_VAL_P99[@]}")" "$(mean "${BARE_P99[@]}")" "" ""
    row "validator CPU us/request, before" "$(mean "${OLD_VAL_CPU[@]}")" "$(mean "${BARE_CPU[@]}")" "$(ratio "$(mean "${BARE_CPU[@]}")" "$(mean "${OLD_VAL_CPU[@]}")")" ""
    row "actions/s vs move.sql tx/s, before" "$(mean "${OLD_ACT_RPS[@]}")" "$SQL" "$(ratio "$(mean "${OLD_ACT_RPS[@]}")" "$SQL")" ">= 0.85"
    row "action p99 ms, before" "$(mean "${OLD_ACT_P99[@]}")" "$(mean "${SQL_P99[@]}")" "$(ratio "$(mean "${OLD_ACT_P99[@]}")" "$(mean "${SQL_P99[@]}")")" "<= 1"
    row "service CPU us/action, before" "$(mean "${OLD_ACT_CPU[@]}")" "" "" ""
fi
row "idle db transactions/s, two replicas, $(field streams) streams" "$(field idle_db_tps)" "" "" "<= 4"
row "delivery across replicas p99 ms" "$(field delivery_p99_ms)" "" "" "< 250"
row "SIGTERM to exit, streams open, s" "$(field sigterm_s)" "" "" "< 3"
row "actions/s at 32 clients, Citus vs one PostgreSQL" "$(mean "${CITUS_RPS[@]}")" "$(mean "${SINGLE_RPS[@]}")" "$(ratio "$(mean "${CITUS_RPS[@]}")" "$(mean "${SINGLE_RPS[@]}")")" ">= 0.60"
row "action p99 ms, Citus vs one PostgreSQL" "$(mean "${CITUS_P99[@]}")" "$(mean "${SINGLE_P99[@]}")" "$(ratio "$(mean "${CITUS_P99[@]}")" "$(mean "${SINGLE_P99[@]}")")" "<= 2.00"
row "statements the coordinator relays per action" "$(mean "${CITUS_STMTS[@]}")" "" "" "<= 2"
row "Citus CPU us/action: coordinator, workers" "$(mean "${COORD_CPU[@]}")" "$(mean "${WORKER_CPU[@]}")" "" ""
row "RSS with the streams open, MB" "$(field rss_mb)" "" "" "< 100"
row "a person's move p99 ms, 3 hard bots vs people" "$(mean "${BOTS_P99[@]}")" "$(mean "${PACED_P99[@]}")" "$(ratio "$(mean "${BOTS_P99[@]}")" "$(mean "${PACED_P99[@]}")")" "<= 1"
row "a person's move p99 ms, people at full speed" "$(mean "${PEOPLE_P99[@]}")" "" "" ""
row "a person's moves/s, 3 hard bots vs full speed" "$(mean "${BOTS_RATE[@]}")" "$(mean "${PEOPLE_RATE[@]}")" "" ""
row "actions/s, traces to a dead collector vs off" "$(mean "${DEAD_RPS[@]}")" "$(mean "${OFF_RPS[@]}")" "$(ratio "$(mean "${DEAD_RPS[@]}")" "$(mean "${OFF_RPS[@]}")")" ">= 0.95"
row "action p99 ms, dead collector vs off" "$(mean "${DEAD_P99[@]}")" "$(mean "${OFF_P99[@]}")" "$(ratio "$(mean "${DEAD_P99[@]}")" "$(mean "${OFF_P99[@]}")")" ""
row "spans dropped by the dead collector's run" "${DEAD_DROPPED:--}" "" "" ""
# A field of a RESULT line by its whole name (`idle_tps` is not `streams_idle_tps`).
of() { [[ -n $2 ]] && sed -E "s/(^|.*[^a-z_])$1=([0-9.]+).*/\2/" <<<"$2" || echo -; }
row "idle replica tx/s, no stream (before)" "$(of idle_tps "$IDLE_LINE")" "$(of idle_tps "$OLD_IDLE_LINE")" "" "<= 2"
row "idle replica tx/s, $STREAMS streams (before)" "$(of streams_idle_tps "$IDLE_LINE")" "$(of streams_idle_tps "$OLD_IDLE_LINE")" "" "<= 2"
row "quick play: idle tx/s, 10,000 tickets waiting" "$(of idle_tps "$MATCH_LINE")" "$(of idle_tps "$OLD_MATCH_LINE")" "" "<= 20"
row "quick play: a new pair to a game p50 ms" "$(of pair_p50_ms "$MATCH_LINE")" "$(of pair_p50_ms "$OLD_MATCH_LINE")" "" ""
row "quick play: a new pair to a game p99 ms" "$(of pair_p99_ms "$MATCH_LINE")" "$(of pair_p99_ms "$OLD_MATCH_LINE")" "" "< 1000"
if [[ ${#BOARD_ROWS[@]} -gt 0 ]]; then
    echo "   leaderboards at $BOARD_PLAYERS players (part 8), ms: database first page, deep page, rank and page around; HTTP the same"
    for line in "${BOARD_ROWS[@]}"; do
        IFS='|' read -r label a b c d e f <<<"$line"
        printf '   %-12s db %8s %8s %8s   http %8s %8s %8s\n' "$label" "$a" "$b" "$c" "$d" "$e" "$f"
    done
    echo "   a player's reads at $BOARD_PLAYERS players (part 8), ms: database their ratings, their games counted, a page of their games; HTTP the profile, their games"
    for line in "${PLAYER_ROWS[@]}"; do
        IFS='|' read -r label a b c d e <<<"$line"
        printf '   %-12s db %8s %8s %8s   http %8s %8s\n' "$label" "$a" "$b" "$c" "$d" "$e"
    done
fi
row "webhook deliveries/s, a backlog (before)" "$(of deliveries_per_s "$HOOKS_LINE")" "$(of deliveries_per_s "$HOOKS_BEFORE_LINE")" "" ">= 1500"
row "event to receipt p99 ms (before)" "$(of event_to_receipt_p99_ms "$HOOKS_LINE")" "$(of event_to_receipt_p99_ms "$HOOKS_BEFORE_LINE")" "" "< 500"
row "webhooks out of order (before)" "$(of out_of_order "$HOOKS_LINE")" "$(of out_of_order "$HOOKS_BEFORE_LINE")" "" "0"
# Part a: the worst round of each build.
worst() { local f=$1; shift; for l in "$@"; do of "$f" "$l"; done | sort -g | tail -n1 | grep . || echo -; }
if [[ ${#ABANDONED_LINES[@]} -gt 0 ]]; then
    row "abandoned tables: server CPU s in 70 s (before)" "$(worst cpu_s "${ABANDONED_LINES[@]}")" "$(worst cpu_s "${ABANDONED_BEFORE_LINES[@]}")" "" "<= 10"
    row "another table's clock late, max ms (before)" "$(worst clock_late_max_ms "${ABANDONED_LINES[@]}")" "$(worst clock_late_max_ms "${ABANDONED_BEFORE_LINES[@]}")" "" "<= 1500"
fi
if [[ -n $TOURNAMENT_LINE ]]; then
    row "tournament: round 1's tables made, s from start" "$(of tables_made_s "$TOURNAMENT_LINE")" "" "" "<= 30 (10)"
    row "tournament: every seat token read, s from start" "$(of tokens_s "$TOURNAMENT_LINE")" "" "" "<= 30 (10)"
    row "another studio's action p99 ms, herd (alone)" "$(of herd_p99_ms "$TOURNAMENT_LINE")" "$(of baseline_p99_ms "$TOURNAMENT_LINE")" "" "< 100"
    IFS='|' read -r a b c d e f <<<"$STANDINGS_ROW"
    row "standings db ms: first, deep, rank and around" "$a $b" "$c" "" "< 10"
    row "standings http ms: first, next, a player's" "$d $e" "$f" "" ""
fi
if [[ -n ${RATING_LINES:-} ]]; then
    echo "   rating a finished game (part 7):"
    echo "$RATING_LINES"
fi
