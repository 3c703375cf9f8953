-- On a Citus cluster, a tenant's ratings and rated games live together: both distributed by
-- `tenant`, co-located, so that rating a game (its marker and its seats' ratings) is one
-- transaction on one shard, and a player's ratings or a leaderboard one shard's read. The
-- outbox of games to rate belongs to its game: distributed by `game_id` with `games`, so that
-- the action that finishes a game writes it on the game's own shard (`continental_write`).

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('ratings', 'tenant');
        PERFORM create_distributed_table('rated_games', 'tenant', colocate_with => 'ratings');
        PERFORM create_distributed_table('ratings_due', 'game_id', colocate_with => 'games');
    END IF;
END
$$;
