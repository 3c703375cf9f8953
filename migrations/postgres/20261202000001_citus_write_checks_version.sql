-- On a Citus cluster, an action's write (`continental_write`, see `20261129000001_citus_write`
-- and `20261130000001_citus_write_local`) checks that the game's row is still the one read by
-- its version as well as its `xmin`. An `xmin` is a transaction id of the node that wrote the
-- row: once its shard has moved, the row's copy on the new node carries an id of that node's
-- own count, which may equal the one read on the old node by chance; the version rises with
-- every action, wherever it is written. `xmin` still catches a write that leaves the version.
--
-- A new signature (`p_read_version`, null when `p_read` is): the function of the version before
-- stays as it was, for replicas of that version still running during an upgrade.
--
-- One DO block: Citus passes each statement's text on to its workers, and refuses a text of
-- several statements.

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $create$
CREATE FUNCTION continental_write(
    p_game uuid, p_read text, p_read_version bigint, p_status text, p_state text,
    p_version bigint, p_at bigint, p_deadline bigint, p_last bigint, p_events jsonb, p_key jsonb,
    p_seats jsonb, p_outbox jsonb, p_note text
) RETURNS bigint LANGUAGE plpgsql AS $body$
DECLARE
    shard bigint := get_shard_id_for_distribution_column('games', p_game);
    e events;
    k idempotency_keys;
    c seats;
    o webhook_deliveries;
    written bigint;
BEGIN
    -- ShareLock (5), as a distributed write takes it; a shard move's cut-over takes it
    -- exclusively, so after the wait the placement below is the one in force.
    PERFORM lock_shard_metadata(5, ARRAY[shard]);
    IF EXISTS (
        SELECT 1 FROM pg_dist_placement
        WHERE shardid = shard AND groupid = (SELECT groupid FROM pg_dist_local_group)
    ) THEN
        EXECUTE format(
            'UPDATE %s SET status = $2, state = $3, version = $4, updated_at = $5, deadline = $6, last_seq = $7 '
            'WHERE id = $1 AND ($8::text IS NULL OR (xmin::text = $8 AND version = $9))',
            shard_name('games', shard))
        USING p_game, p_status, p_state, p_version, p_at, p_deadline, p_last, p_read, p_read_version;
        GET DIAGNOSTICS written = ROW_COUNT;
        IF written = 0 THEN
            RETURN NULL;
        END IF;
        IF jsonb_array_length(p_events) > 0 THEN
            EXECUTE format('INSERT INTO %s SELECT * FROM jsonb_populate_recordset(NULL::events, $1)',
                shard_name('events', get_shard_id_for_distribution_column('events', p_game)))
            USING p_events;
        END IF;
        IF p_key IS NOT NULL THEN
            EXECUTE format('INSERT INTO %s SELECT * FROM jsonb_populate_record(NULL::idempotency_keys, $1)',
                shard_name('idempotency_keys', get_shard_id_for_distribution_column('idempotency_keys', p_game)))
            USING p_key;
        END IF;
        IF p_seats IS NOT NULL THEN
            EXECUTE format('UPDATE %s AS s SET name = c.name, kind = c.kind '
                'FROM jsonb_populate_recordset(NULL::seats, $1) AS c WHERE s.game_id = $2 AND s.seat = c.seat',
                shard_name('seats', get_shard_id_for_distribution_column('seats', p_game)))
            USING p_seats, p_game;
        END IF;
        IF p_outbox IS NOT NULL THEN
            EXECUTE format('INSERT INTO %s (id, game_id, seq, version, event, status, next_attempt_at, created_at) '
                'SELECT id, game_id, seq, version, event, status, next_attempt_at, created_at '
                'FROM jsonb_populate_recordset(NULL::webhook_deliveries, $1)',
                shard_name('webhook_deliveries', get_shard_id_for_distribution_column('webhook_deliveries', p_game)))
            USING p_outbox;
        END IF;
    ELSE
        UPDATE games SET status = p_status, state = p_state, version = p_version, updated_at = p_at,
            deadline = p_deadline, last_seq = p_last
        WHERE id = p_game AND (p_read IS NULL OR (xmin::text = p_read AND version = p_read_version));
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        -- Row by row: each insert is a plain one, where an INSERT ... SELECT would take
        -- Citus's slower path through intermediate results.
        FOR e IN SELECT * FROM jsonb_populate_recordset(NULL::events, p_events) LOOP
            INSERT INTO events VALUES (e.*);
        END LOOP;
        IF p_key IS NOT NULL THEN
            k := jsonb_populate_record(NULL::idempotency_keys, p_key);
            INSERT INTO idempotency_keys VALUES (k.*);
        END IF;
        FOR c IN SELECT * FROM jsonb_populate_recordset(NULL::seats, p_seats) LOOP
            UPDATE seats SET name = c.name, kind = c.kind WHERE game_id = p_game AND seat = c.seat;
        END LOOP;
        FOR o IN SELECT * FROM jsonb_populate_recordset(NULL::webhook_deliveries, p_outbox) LOOP
            INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at)
            VALUES (o.id, o.game_id, o.seq, o.version, o.event, o.status, o.next_attempt_at, o.created_at);
        END LOOP;
    END IF;
    IF p_note IS NOT NULL THEN
        PERFORM pg_notify('continental_events', p_note);
    END IF;
    RETURN p_last;
END
$body$
$create$;
        PERFORM create_distributed_function(
            'continental_write(uuid, text, bigint, text, text, bigint, bigint, bigint, bigint, jsonb, jsonb, jsonb, jsonb, text)',
            'p_game', colocate_with => 'games');
    END IF;
END
$$;
