-- On a Citus cluster (the `citus` extension is installed in this database), every game's rows
-- live on one shard: `games` is distributed by its id and every table of a game's rows by
-- `game_id`, co-located with it, so that an action's statements all run on one worker.
-- Creation keys belong to no game: they are spread by the key itself. `settings` is small and
-- read everywhere: a reference table, copied to every node. On PostgreSQL without Citus, and
-- on SQLite, nothing changes.

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_reference_table('settings');
        PERFORM create_distributed_table('games', 'id');
        PERFORM create_distributed_table('seats', 'game_id', colocate_with => 'games');
        PERFORM create_distributed_table('events', 'game_id', colocate_with => 'games');
        PERFORM create_distributed_table('idempotency_keys', 'game_id', colocate_with => 'games');
        PERFORM create_distributed_table('webhook_deliveries', 'game_id', colocate_with => 'games');
        PERFORM create_distributed_table('creation_keys', 'key');
    END IF;
END
$$;
