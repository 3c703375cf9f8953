-- A tournament's standings after each round (docs/tournaments.md#scoring), written once, in
-- the transaction that closes the round (the one that starts the next, or finishes it): one
-- row per entrant, `position` its index in the order of the standings (from 0), `rank` the
-- rank it shows (ties share one). A page is a range of the primary key; a player's standing
-- one row of the second index: no read recounts the games.

DO $$
BEGIN
    CREATE TABLE tournament_standings (
        tournament_id UUID NOT NULL,
        round BIGINT NOT NULL,
        position BIGINT NOT NULL,
        rank BIGINT NOT NULL,
        player TEXT NOT NULL,
        name TEXT NOT NULL,
        score DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (tournament_id, round, position)
    );
    CREATE UNIQUE INDEX tournament_standings_by_player ON tournament_standings (tournament_id, round, player);
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('tournament_standings', 'tournament_id', colocate_with => 'tournaments');
    END IF;
END
$$;
