-- A game whose stored state no longer loads is set aside by the background pass that meets
-- it (issue 41): its deadline is cleared, so that no pass finds it due again, and the time it
-- was set aside (unix ms) is kept here for the operator (docs/operations.md#games-set-aside).
-- Null on every game that loads.
ALTER TABLE games ADD COLUMN set_aside_at BIGINT;
