-- Each game's place in its webhook outbox (issue 51): one row per game that has had a delivery,
-- so that the deliveries due are found by an index range scan over the games due, whatever the
-- number pending. `due_at` (unix ms) is when the game's first pending delivery may be attempted
-- (while a replica holds it, the end of that replica's lease; after a failure, the retry's
-- time), null when none is pending; `last_seq` is the seq of the game's latest delivery
-- written. A write that queues deliveries sets `last_seq` (and `due_at` if it was null); the
-- settling of the delivery of seq `last_seq` makes it null. Both write the row, so that the one
-- that comes second sees the other's (PostgreSQL re-reads a row changed under a statement).
--
-- On a Citus cluster the table is distributed by `game_id` with `games`, and its foreign key
-- added once it is (a table not yet distributed cannot refer to a distributed one).

DO $$
DECLARE
    citus boolean := EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus');
BEGIN
    CREATE TABLE webhook_heads (
        game_id UUID PRIMARY KEY,
        due_at BIGINT,
        last_seq BIGINT NOT NULL
    );
    CREATE INDEX webhook_heads_due ON webhook_heads (due_at) WHERE due_at IS NOT NULL;
    IF citus THEN
        PERFORM create_distributed_table('webhook_heads', 'game_id', colocate_with => 'games');
    END IF;
    ALTER TABLE webhook_heads ADD FOREIGN KEY (game_id) REFERENCES games (id) ON DELETE CASCADE;
    -- The games with deliveries pending when this runs.
    INSERT INTO webhook_heads (game_id, due_at, last_seq)
    SELECT game_id, min(next_attempt_at), max(seq) FROM webhook_deliveries
    WHERE status = 'pending' GROUP BY game_id;
END
$$;
