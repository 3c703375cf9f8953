-- On a Citus cluster, an action's write is one call of `continental_write`
-- (`20261204000004_citus_write_players`). Webhooks found by each game's head (issue 51,
-- `20261207000051_webhook_heads`): a write that queues deliveries also writes its game's row of
-- `webhook_heads` (co-located with the game), as the writes of one PostgreSQL and SQLite do: its
-- `last_seq` the seq of the last delivery queued, its `due_at` the first's time if it had none.
-- The value it takes is unchanged.
--
-- One DO block: Citus passes each statement's text on to its workers, and refuses a text of
-- several statements.

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $create$
CREATE OR REPLACE FUNCTION continental_write(p_game uuid, p_write jsonb) RETURNS bigint LANGUAGE plpgsql AS $body$
DECLARE
    shard bigint := get_shard_id_for_distribution_column('games', p_game);
    g record;
    e record;
    k record;
    c record;
    o record;
    written bigint;
BEGIN
    SELECT * INTO g FROM jsonb_to_record(p_write->'game') AS x(
        status text, state text, version bigint, updated_at bigint, deadline bigint, last_seq bigint);
    -- ShareLock (5), as a distributed write takes it; a shard move's cut-over takes it
    -- exclusively, so after the wait the placement below is the one in force.
    PERFORM lock_shard_metadata(5, ARRAY[shard]);
    IF EXISTS (
        SELECT 1 FROM pg_dist_placement
        WHERE shardid = shard AND groupid = (SELECT groupid FROM pg_dist_local_group)
    ) THEN
        -- The game's own shards on this node, by plain statements.
        EXECUTE format(
            'UPDATE %s SET status = $2, state = $3, version = $4, updated_at = $5, deadline = $6, last_seq = $7 '
            'WHERE id = $1 AND ($8::text IS NULL OR (xmin::text = $8 AND version = $9))',
            shard_name('games', shard))
        USING p_game, g.status, g.state, g.version, g.updated_at, g.deadline, g.last_seq,
            p_write->>'read', (p_write->>'read_version')::bigint;
        GET DIAGNOSTICS written = ROW_COUNT;
        IF written = 0 THEN
            RETURN NULL;
        END IF;
        IF jsonb_array_length(coalesce(p_write->'events', '[]')) > 0 THEN
            EXECUTE format('INSERT INTO %s (game_id, seq, seat, body, step, created_at) '
                'SELECT $2, seq, seat, body, step, created_at FROM jsonb_to_recordset($1) '
                'AS e(seq bigint, seat bigint, body text, step text, created_at bigint)',
                shard_name('events', get_shard_id_for_distribution_column('events', p_game)))
            USING p_write->'events', p_game;
        END IF;
        IF jsonb_typeof(p_write->'key') = 'object' THEN
            EXECUTE format('INSERT INTO %s (game_id, seat, key, request_hash, status, response_status, '
                'response_headers, response_body, created_at) '
                'SELECT $2, seat, key, request_hash, status, response_status, response_headers, '
                'response_body, created_at FROM jsonb_to_record($1) AS k(seat bigint, key text, '
                'request_hash text, status text, response_status bigint, response_headers text, '
                'response_body bytea, created_at bigint)',
                shard_name('idempotency_keys', get_shard_id_for_distribution_column('idempotency_keys', p_game)))
            USING p_write->'key', p_game;
        END IF;
        IF jsonb_array_length(coalesce(p_write->'seats', '[]')) > 0 THEN
            EXECUTE format('UPDATE %s AS s SET name = c.name, kind = c.kind, player = c.player '
                'FROM jsonb_to_recordset($1) AS c(seat bigint, name text, kind text, player text) '
                'WHERE s.game_id = $2 AND s.seat = c.seat',
                shard_name('seats', get_shard_id_for_distribution_column('seats', p_game)))
            USING p_write->'seats', p_game;
        END IF;
        IF jsonb_array_length(coalesce(p_write->'outbox', '[]')) > 0 THEN
            EXECUTE format('INSERT INTO %s (id, game_id, seq, version, event, status, next_attempt_at, created_at) '
                'SELECT id, $2, seq, version, event, status, next_attempt_at, created_at '
                'FROM jsonb_to_recordset($1) AS o(id text, seq bigint, version bigint, event text, '
                'status text, next_attempt_at bigint, created_at bigint)',
                shard_name('webhook_deliveries', get_shard_id_for_distribution_column('webhook_deliveries', p_game)))
            USING p_write->'outbox', p_game;
            EXECUTE format('INSERT INTO %s AS h (game_id, due_at, last_seq) '
                'SELECT $2, min(next_attempt_at), max(seq) FROM jsonb_to_recordset($1) '
                'AS o(seq bigint, next_attempt_at bigint) '
                'ON CONFLICT (game_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, '
                'due_at = coalesce(h.due_at, EXCLUDED.due_at)',
                shard_name('webhook_heads', get_shard_id_for_distribution_column('webhook_heads', p_game)))
            USING p_write->'outbox', p_game;
        END IF;
        IF p_write->>'rate' IS NOT NULL THEN
            EXECUTE format('INSERT INTO %s (game_id, tenant, due_at) SELECT id, tenant, $2 FROM %s '
                'WHERE id = $1 ON CONFLICT (game_id) DO NOTHING',
                shard_name('ratings_due', get_shard_id_for_distribution_column('ratings_due', p_game)),
                shard_name('games', shard))
            USING p_game, (p_write->>'rate')::bigint;
        END IF;
    ELSE
        -- Anywhere else (on the coordinator, inside a caller's transaction block; on a node the
        -- shard has left): through the distributed tables.
        UPDATE games SET status = g.status, state = g.state, version = g.version,
            updated_at = g.updated_at, deadline = g.deadline, last_seq = g.last_seq
        WHERE id = p_game AND (p_write->>'read' IS NULL
            OR (xmin::text = p_write->>'read' AND version = (p_write->>'read_version')::bigint));
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        -- Row by row: each insert is a plain one, where an INSERT ... SELECT would take
        -- Citus's slower path through intermediate results.
        FOR e IN SELECT * FROM jsonb_to_recordset(coalesce(p_write->'events', '[]'))
            AS x(seq bigint, seat bigint, body text, step text, created_at bigint) LOOP
            INSERT INTO events (game_id, seq, seat, body, step, created_at)
            VALUES (p_game, e.seq, e.seat, e.body, e.step, e.created_at);
        END LOOP;
        IF jsonb_typeof(p_write->'key') = 'object' THEN
            SELECT * INTO k FROM jsonb_to_record(p_write->'key') AS x(seat bigint, key text,
                request_hash text, status text, response_status bigint, response_headers text,
                response_body bytea, created_at bigint);
            INSERT INTO idempotency_keys (game_id, seat, key, request_hash, status, response_status,
                response_headers, response_body, created_at)
            VALUES (p_game, k.seat, k.key, k.request_hash, k.status, k.response_status,
                k.response_headers, k.response_body, k.created_at);
        END IF;
        FOR c IN SELECT * FROM jsonb_to_recordset(coalesce(p_write->'seats', '[]'))
            AS x(seat bigint, name text, kind text, player text) LOOP
            UPDATE seats SET name = c.name, kind = c.kind, player = c.player
            WHERE game_id = p_game AND seat = c.seat;
        END LOOP;
        FOR o IN SELECT * FROM jsonb_to_recordset(coalesce(p_write->'outbox', '[]'))
            AS x(id text, seq bigint, version bigint, event text, status text, next_attempt_at bigint,
                created_at bigint) LOOP
            INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at)
            VALUES (o.id, p_game, o.seq, o.version, o.event, o.status, o.next_attempt_at, o.created_at);
        END LOOP;
        IF jsonb_array_length(coalesce(p_write->'outbox', '[]')) > 0 THEN
            INSERT INTO webhook_heads AS h (game_id, due_at, last_seq)
            SELECT p_game, min(x.next_attempt_at), max(x.seq)
            FROM jsonb_to_recordset(p_write->'outbox') AS x(seq bigint, next_attempt_at bigint)
            ON CONFLICT (game_id) DO UPDATE SET last_seq = EXCLUDED.last_seq,
                due_at = coalesce(h.due_at, EXCLUDED.due_at);
        END IF;
        IF p_write->>'rate' IS NOT NULL THEN
            INSERT INTO ratings_due (game_id, tenant, due_at)
            SELECT id, tenant, (p_write->>'rate')::bigint FROM games WHERE id = p_game
            ON CONFLICT (game_id) DO NOTHING;
        END IF;
    END IF;
    IF p_write->>'note' IS NOT NULL THEN
        PERFORM pg_notify('continental_events', p_write->>'note');
    END IF;
    RETURN g.last_seq;
END
$body$
$create$;
        PERFORM create_distributed_function('continental_write(uuid, jsonb)', 'p_game',
            colocate_with => 'games');
    END IF;
END
$$;
