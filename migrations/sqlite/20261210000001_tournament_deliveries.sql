-- A tournament's own webhook deliveries (docs/tournaments.md#webhooks): a round started, a
-- round ended, the tournament finished. Each is written in the transaction that moves the
-- tournament on, numbered `seq` from 1 per tournament, and delivered in that order by the
-- tournament pass: a tournament's next delivery waits for the one before it until that one is
-- delivered or given up. `next_attempt_at` is when it may be attempted (a retry's time, or the
-- end of a replica's lease on it); times are unix ms.

CREATE TABLE tournament_deliveries (
    tournament_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    event TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

CREATE INDEX tournament_deliveries_pending ON tournament_deliveries (next_attempt_at)
    WHERE status = 'pending';
