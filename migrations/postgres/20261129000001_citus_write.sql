-- On a Citus cluster, an action's write is one call of `continental_write`, a function
-- distributed by its game id and co-located with `games`: the coordinator hands the call to the
-- worker that holds the game, which runs every statement of it there, so the write crosses the
-- coordinator once (docs/performance.md#scaling-out). Its `NOTIFY` is then the worker's: each
-- replica listens on every node. One PostgreSQL keeps its one-statement write; SQLite has none.
--
-- The rows come as JSON read into each table's own row type, so that a column added to a
-- table is one more field of the JSON the service sends, not a new signature. Returns the new
-- last seq, or null when the game's row is no longer the one read (its `xmin`, when given).
--
-- One DO block: Citus passes each statement's text on to its workers, and refuses a text of
-- several statements.

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $create$
CREATE FUNCTION continental_write(
    p_game uuid, p_read text, p_status text, p_state text, p_version bigint, p_at bigint,
    p_deadline bigint, p_last bigint, p_events jsonb, p_key jsonb, p_seats jsonb, p_outbox jsonb,
    p_note text
) RETURNS bigint LANGUAGE plpgsql AS $body$
DECLARE
    e events;
    k idempotency_keys;
    c seats;
    o webhook_deliveries;
BEGIN
    UPDATE games SET status = p_status, state = p_state, version = p_version, updated_at = p_at,
        deadline = p_deadline, last_seq = p_last
    WHERE id = p_game AND (p_read IS NULL OR xmin::text = p_read);
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    -- Row by row: each insert is a plain one on the local shard, where an INSERT ... SELECT
    -- would take Citus's slower path through intermediate results.
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
    IF p_note IS NOT NULL THEN
        PERFORM pg_notify('continental_events', p_note);
    END IF;
    RETURN p_last;
END
$body$
$create$;
        PERFORM create_distributed_function(
            'continental_write(uuid, text, text, text, bigint, bigint, bigint, bigint, jsonb, jsonb, jsonb, jsonb, text)',
            'p_game', colocate_with => 'games');
    END IF;
END
$$;
