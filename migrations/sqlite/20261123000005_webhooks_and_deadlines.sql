-- Asynchronous play (issue 14): a game's webhook, its turn deadline, and the outbox of
-- webhook deliveries written in each action's own transaction.

ALTER TABLE games ADD COLUMN webhook_url TEXT;
-- The signing key, as given to the creator (`whsec_<base64>`): needed to sign every delivery.
ALTER TABLE games ADD COLUMN webhook_secret TEXT;
-- When the seat in turn times out (unix milliseconds); null when the game has no turn clock
-- or no one is in turn. The sweeper looks for due games by it.
ALTER TABLE games ADD COLUMN deadline INTEGER;

CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;

CREATE TABLE webhook_deliveries (
    -- The delivery id: `webhook-id`, stable across retries.
    id TEXT PRIMARY KEY,
    game_id BLOB NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    -- The game's version after the action that made the event.
    version INTEGER NOT NULL,
    -- The event as a spectator sees it (JSON): never a hand.
    event TEXT NOT NULL,
    -- 'pending' until a 2xx ('delivered') or a day of failures ('failed').
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    -- Unix milliseconds: not before this; and not while another worker holds its lease.
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (game_id, seq)
);

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
