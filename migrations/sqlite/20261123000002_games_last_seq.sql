-- The last event's sequence number kept on the game row: an action appends its events after
-- it without `SELECT MAX(seq)`, and the row lock it already holds keeps the numbers in order.

ALTER TABLE games ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;

UPDATE games SET last_seq = COALESCE((SELECT MAX(seq) FROM events WHERE events.game_id = games.id), 0);
