-- The outbox's claim takes, of each game, only its first pending delivery: for each pending
-- row it asks whether the same game has an earlier pending one. Without this index that probe
-- read every pending row of the outbox, so that a backlog of a few thousand deliveries made
-- each claim take a second (found by the soak, docs/operations.md#soak).
CREATE INDEX webhook_deliveries_pending_by_game ON webhook_deliveries (game_id, seq) WHERE status = 'pending';
