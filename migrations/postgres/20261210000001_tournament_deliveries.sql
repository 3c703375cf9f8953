-- A tournament's own webhook deliveries (docs/tournaments.md#webhooks): a round started, a
-- round ended, the tournament finished. Each is written in the transaction that moves the
-- tournament on, numbered `seq` from 1 per tournament, and delivered in that order by the
-- tournament pass: a tournament's next delivery waits for the one before it until that one is
-- delivered or given up. `next_attempt_at` is when it may be attempted (a retry's time, or the
-- end of a replica's lease on it); times are unix ms.

DO $$
BEGIN
    CREATE TABLE tournament_deliveries (
        tournament_id UUID NOT NULL,
        seq BIGINT NOT NULL,
        id TEXT NOT NULL,
        event TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (tournament_id, seq)
    );
    CREATE INDEX tournament_deliveries_pending ON tournament_deliveries (next_attempt_at)
        WHERE status = 'pending';
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('tournament_deliveries', 'tournament_id', colocate_with => 'tournaments');
    END IF;
END
$$;
