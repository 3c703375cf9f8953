-- Every unique key of a game's rows holds the game's id, so that a cluster that spreads games
-- across shards by id (`20261126000002_citus.sql`) can keep each key on one shard. A delivery's
-- id stays unique by itself (a random `msg_` id); it is now found with its game.

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
ALTER TABLE webhook_deliveries ADD PRIMARY KEY (game_id, id);
