-- Indexes for the periodic sweeps: idempotency keys past their time to live, and finished or
-- void games past their retention (their seats, events and keys go with them by cascade).

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
CREATE INDEX creation_keys_created_at ON creation_keys (created_at);
CREATE INDEX games_over_updated_at ON games (updated_at) WHERE status IN ('finished', 'void');
