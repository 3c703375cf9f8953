-- The sweeps read expired rows in batches ordered by their time and then by the column each
-- delete names, from a cursor on both: an index on the pair gives every batch in order, read
-- from the cursor on, so that no plan needs to read the whole table or sort it. They replace
-- the indexes on the time alone, which nothing else reads. A creation key is deleted by its
-- key, which its primary key holds only after the game and seat: it gets an index of its own.

DROP INDEX idempotency_keys_created_at;
DROP INDEX creation_keys_created_at;
DROP INDEX games_over_updated_at;

CREATE INDEX idempotency_keys_swept ON idempotency_keys (created_at, game_id);
CREATE INDEX creation_keys_swept ON creation_keys (created_at, key);
CREATE INDEX creation_keys_by_key ON creation_keys (key);
CREATE INDEX games_swept ON games (updated_at, id) WHERE status IN ('finished', 'void');
