-- On a Citus cluster, an action's write is one call of `continental_write`, a function
-- distributed by its game id and co-located with `games`: the coordinator hands the call to the
-- worker that holds the game, which runs every statement of it there, so the write crosses the
-- coordinator once (docs/performance.md#scaling-out). Its `NOTIFY` is then the worker's: each
-- replica listens on every node. One PostgreSQL keeps its one-statement write; SQLite has none.
--
-- The rows come as JSON arrays read into each table's own row type, so that a column added to a
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
BEGIN
    UPDATE games SET status = p_status, state = p_state, version = p_version, updated_at = p_at,
        deadline = p_deadline, last_seq = p_last
    WHERE id = p_game AND (p_read IS NULL OR xmin::text = p_read);
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO events SELECT * FROM jsonb_populate_recordset(NULL::events, p_events);
    IF p_key IS NOT NULL THEN
        INSERT INTO idempotency_keys SELECT * FROM jsonb_populate_recordset(NULL::idempotency_keys, p_key);
    END IF;
    IF p_seats IS NOT NULL THEN
        UPDATE seats s SET name = c.name, kind = c.kind
        FROM jsonb_populate_recordset(NULL::seats, p_seats) c
        WHERE s.game_id = p_game AND s.seat = c.seat;
    END IF;
    IF p_outbox IS NOT NULL THEN
        INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at)
        SELECT o.id, o.game_id, o.seq, o.version, o.event, o.status, o.next_attempt_at, o.created_at
        FROM jsonb_populate_recordset(NULL::webhook_deliveries, p_outbox) o;
    END IF;
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
