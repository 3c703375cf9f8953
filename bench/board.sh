#!/usr/bin/env bash
# Part 8 of bench/run.sh: leaderboards at BOARD_PLAYERS (default 1,000,000) rated players of one
# tenant. Sourced by run.sh, which sets WORK, PGURL, ROUNDS, BEFORE and the helpers it uses.
#
# Each build gets a database of its own, migrated by the build itself, then filled by SQL (not
# through games: a million rated games would take hours) with the tenant's players in `may_i`,
# means and deviations spread as rated players' are, and, where the build has them, the board's
# counts made as its migration makes them. Then, for each build: the database's execution time
# (EXPLAIN ANALYZE, median of 5) of the statements the build sends for the first page, a page at
# depth DEEP (default 900,000) and, where the build can, a player's rank with the page around
# them at that depth; and the same asked through HTTP (curl, median of 20).
#
# Then a player's reads (docs/performance.md#player-reads), with BOARD_GAMES (default 500,000)
# games of the tenant of four seats each, every player at two: the statements of the profile
# (their ratings; their games counted) and of the first page of their games, at the database
# (EXPLAIN ANALYZE, median of 5), and `GET /v1/players/{id}` and `GET /v1/players/{id}/games`
# through HTTP (median of 20). The games' state is a stub: the page lists them as it lists a
# game it cannot load (`corrupt`), which is all the reads need.
BOARD_PLAYERS=${BOARD_PLAYERS:-1000000}
BOARD_GAMES=${BOARD_GAMES:-500000}
DEEP=${DEEP:-900000}
BOARD_KEY=bench-board-key-0123456789abcdef

board_fill() { # database -> fills ratings (and board_counts where it exists)
    psql "$PGURL/$1" -q <<SQL >/dev/null
INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at)
SELECT 'bench', 'may_i', 'player:p' || i,
       25 + 5 * (random() + random() + random() - 1.5), 0.8 + 7 * random(), 1 + (random() * 50)::int, 0, 0
FROM generate_series(1, $BOARD_PLAYERS) i;
INSERT INTO games (id, variant, status, state, version, seed, seed_commitment, created_at, updated_at, tenant, created_us, rated)
SELECT gen_random_uuid(), 'may_i', CASE WHEN i % 5 = 0 THEN 'playing' ELSE 'finished' END, '{}', 1, 's', 'c', i, i, 'bench', i, true
FROM generate_series(1, $BOARD_GAMES) i;
INSERT INTO seats (game_id, seat, name, kind, player)
SELECT g.id, s, 'p', 'player', 'p' || (1 + (g.created_us * 4 + s * 7919) % $BOARD_PLAYERS)
FROM games g, generate_series(0, 3) s WHERE g.tenant = 'bench';
DO \$\$ BEGIN
    IF to_regclass('board_counts') IS NOT NULL THEN
        INSERT INTO board_counts (tenant, variant, bucket, players)
        SELECT tenant, variant, floor((mean - 3 * deviation) * 64)::BIGINT, COUNT(*)
        FROM ratings WHERE participant LIKE 'player:%' GROUP BY 1, 2, 3;
    END IF;
END \$\$;
VACUUM ANALYZE ratings;
VACUUM ANALYZE games;
VACUUM ANALYZE seats;
SQL
}

# The database's execution time of a statement, median of 5, in ms.
explain_ms() { # database statement
    for _ in 1 2 3 4 5; do
        psql "$PGURL/$1" -qAt -c "EXPLAIN (ANALYZE, FORMAT JSON) $2" | jq '.[0]."Execution Time"'
    done | sort -g | sed -n 3p
}

# The median time of 20 GETs of a URL with the bench's key, in ms.
http_ms() { # url
    for _ in $(seq 20); do
        curl -s -o /dev/null -w '%{time_total}\n' -H "X-Api-Key: $BOARD_KEY" "$1"
    done | sort -g | sed -n 10p | awk '{ printf "%.2f", $1 * 1000 }'
}

board_part() { # label binary database port new|keyset|before
    local label=$1 bin=$2 db=$3 port=$4 kind=$5
    psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)"
    psql_admin "CREATE DATABASE $db"
    CONTINENTAL_BIND=127.0.0.1:$port DATABASE_URL="$PGURL/$db" CONTINENTAL_API_KEYS="bench:$BOARD_KEY" \
        "$bin" >"$WORK/board-$label.log" 2>&1 & PIDS+=($!)
    wait_port "$port"
    local started=$SECONDS
    board_fill "$db"
    echo "   $label: $BOARD_PLAYERS players made in $((SECONDS - started)) s  [$(load)]"
    local list="SELECT participant, mean, deviation, games, (mean - 3 * deviation) AS conservative"
    local cols="$list FROM ratings"
    local where="WHERE tenant = 'bench' AND variant = 'may_i' AND participant LIKE 'player:%'"
    # The row at depth DEEP, by the board's order.
    local deep c p b
    deep=$(psql "$PGURL/$db" -qAt -F ' ' -c "SELECT mean - 3 * deviation, participant, floor((mean - 3 * deviation) * 64)::bigint
        FROM ratings $where ORDER BY mean - 3 * deviation DESC, participant COLLATE \"C\" OFFSET $((DEEP - 1)) LIMIT 1")
    read -r c p b <<<"$deep"
    local first_sql deep_sql around_sql=""
    if [[ $kind != before ]]; then
        first_sql="$cols $where ORDER BY 3 * deviation - mean, participant COLLATE \"C\" LIMIT 51"
        local neg="-($c)::float8" lo="-(($b + 1)::float8 / 64)"
        # The page after a cursor, with the players ahead of it counted in the same statement.
        deep_sql="$list, CAST((SELECT COALESCE(SUM(players), 0) FROM board_counts WHERE tenant = 'bench' AND variant = 'may_i' AND bucket > $b)
              + (SELECT COUNT(*) FROM ratings $where AND 3 * deviation - mean > $lo AND 3 * deviation - mean <= $neg
                 AND (3 * deviation - mean, participant COLLATE \"C\") <= ($neg, '$p')) AS BIGINT) AS ahead
            FROM ratings $where AND 3 * deviation - mean >= $neg AND (3 * deviation - mean, participant COLLATE \"C\") > ($neg, '$p')
            ORDER BY 3 * deviation - mean, participant COLLATE \"C\" LIMIT 51"
        if [[ $kind == keyset ]]; then
            # A build of issue 51 to 57: the same keyset, its rank carried by the cursor.
            deep_sql="$cols $where AND 3 * deviation - mean >= $neg AND (3 * deviation - mean, participant COLLATE \"C\") > ($neg, '$p')
                ORDER BY 3 * deviation - mean, participant COLLATE \"C\" LIMIT 51"
        fi
        around_sql="SELECT * FROM ($list, 0 AS side,
              CAST((SELECT COALESCE(SUM(players), 0) FROM board_counts WHERE tenant = 'bench' AND variant = 'may_i' AND bucket > $b)
              + (SELECT COUNT(*) FROM ratings $where AND 3 * deviation - mean > $lo AND 3 * deviation - mean <= $neg
                 AND (3 * deviation - mean, participant COLLATE \"C\") < ($neg, '$p')) AS BIGINT) AS ahead,
              CAST((SELECT COALESCE(SUM(players), 0) FROM board_counts WHERE tenant = 'bench' AND variant = 'may_i') AS BIGINT) AS players
            FROM ratings WHERE tenant = 'bench' AND variant = 'may_i' AND participant = '$p') AS own
            UNION ALL SELECT * FROM ($list, -1 AS side, CAST(0 AS BIGINT), CAST(0 AS BIGINT) FROM ratings $where
              AND 3 * deviation - mean <= $neg AND (3 * deviation - mean, participant COLLATE \"C\") < ($neg, '$p')
              ORDER BY 3 * deviation - mean DESC, participant COLLATE \"C\" DESC LIMIT 49) AS above
            UNION ALL SELECT * FROM ($list, 1 AS side, CAST(0 AS BIGINT), CAST(0 AS BIGINT) FROM ratings $where
              AND 3 * deviation - mean >= $neg AND (3 * deviation - mean, participant COLLATE \"C\") > ($neg, '$p')
              ORDER BY 3 * deviation - mean, participant COLLATE \"C\" LIMIT 50) AS below"
    else
        first_sql="$cols $where ORDER BY conservative DESC, participant COLLATE \"C\" LIMIT 51"
        deep_sql="$cols $where AND ((mean - 3 * deviation) < $c OR ((mean - 3 * deviation) = $c AND participant COLLATE \"C\" > '$p'))
            ORDER BY conservative DESC, participant COLLATE \"C\" LIMIT 51"
    fi
    local url="http://127.0.0.1:$port/v1/leaderboards/may_i"
    local id=${p#player:} cursor
    if [[ $kind != before ]]; then
        # The cursors are sealed: the page around the player at depth DEEP (of one entry) gives the
        # cursor after them.
        cursor=$(curl -s -H "X-Api-Key: $BOARD_KEY" "$url?around=$id&limit=1" | jq -r .next_cursor)
    else
        # The build before read any text of its pattern: its cursor is made here.
        cursor=$(python3 -c 'import base64, struct, sys
print(base64.urlsafe_b64encode(struct.pack(">dQ", float(sys.argv[1]), int(sys.argv[2])) + sys.argv[3].encode()).decode().rstrip("="))' "$c" "$DEEP" "$p")
    fi
    BOARD_ROWS+=("$label|$(explain_ms "$db" "$first_sql")|$(explain_ms "$db" "$deep_sql")|$([[ -n $around_sql ]] && explain_ms "$db" "$around_sql" || echo -)|$(http_ms "$url?limit=50")|$(http_ms "$url?limit=50&cursor=$cursor")|$([[ $kind != before ]] && http_ms "$url?around=$id&limit=50" || echo -)")
    # A player's reads: the same statements in both builds (the build before lacks the index).
    local player_ratings="SELECT variant, mean, deviation, games, won FROM ratings WHERE tenant = 'bench' AND participant = '$p' ORDER BY variant"
    local player_games="SELECT COUNT(*) AS games, COALESCE(SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END), 0) AS finished
        FROM games WHERE tenant = 'bench' AND id IN (SELECT game_id FROM seats WHERE player = '$id')"
    local games_page="SELECT id, variant, status, state, version, created_us FROM games WHERE tenant = 'bench'
        AND id IN (SELECT game_id FROM seats WHERE player = '$id') ORDER BY created_us DESC, id DESC LIMIT 51"
    local players="http://127.0.0.1:$port/v1/players/$id"
    PLAYER_ROWS+=("$label|$(explain_ms "$db" "$player_ratings")|$(explain_ms "$db" "$player_games")|$(explain_ms "$db" "$games_page")|$(http_ms "$players")|$(http_ms "$players/games?limit=50")")
    if [[ $kind != before ]]; then
        local rank
        rank=$(curl -s -H "X-Api-Key: $BOARD_KEY" "$url?around=$id&limit=1" | jq .player.rank)
        [[ $rank == "$DEEP" ]] || { echo "   the player at depth $DEEP answered rank $rank" >&2; exit 1; }
    fi
    kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'
    psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)"
}

BOARD_ROWS=()
PLAYER_ROWS=()
echo "== 8. leaderboards at $BOARD_PLAYERS players of one tenant: database (EXPLAIN ANALYZE, median of 5) and HTTP (median of 20), ms"
board_part "this build" "$WORK/continental" continental_board 28091 new
# BEFORE_BOARD=keyset for a build before of issue 51 to 57 (sealed keyset cursors that carry a
# rank); `before` (the default) for one before issue 51.
if [[ -n $BEFORE ]]; then board_part "before" "$BEFORE" continental_board_before 28092 "${BEFORE_BOARD:-before}"; fi
