-- Each game's place in its webhook outbox (issue 51): one row per game that has had a delivery,
-- so that the deliveries due are found by an index range scan over the games due, whatever the
-- number pending. `due_at` (unix ms) is when the game's first pending delivery may be attempted
-- (while the worker holds it, the end of its lease; after a failure, the retry's time), null
-- when none is pending; `last_seq` is the seq of the game's latest delivery written.

CREATE TABLE webhook_heads (
    game_id BLOB PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    due_at INTEGER,
    last_seq INTEGER NOT NULL
);

CREATE INDEX webhook_heads_due ON webhook_heads (due_at) WHERE due_at IS NOT NULL;

-- The games with deliveries pending when this runs.
INSERT INTO webhook_heads (game_id, due_at, last_seq)
SELECT game_id, min(next_attempt_at), max(seq) FROM webhook_deliveries
WHERE status = 'pending' GROUP BY game_id;
