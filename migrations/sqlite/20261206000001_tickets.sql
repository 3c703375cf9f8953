-- Quick play's tickets: a player waiting for a table (docs/api.md#matchmaking). A ticket is
-- `waiting`, then `placing` (in a table the matching pass formed, its game not yet known to
-- exist), `matched` (its game exists), `expired` or `cancelled`. `rules` is the ticket's
-- ruleset and turn clock as JSON: tickets meet only with equal rules. Times are unix ms.

CREATE TABLE tickets (
    tenant TEXT NOT NULL,
    id BLOB NOT NULL,
    player TEXT,
    name TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    -- The table sizes accepted, as a JSON array.
    sizes TEXT NOT NULL,
    async BOOLEAN NOT NULL,
    rating_mean REAL NOT NULL,
    rating_deviation REAL NOT NULL,
    webhook_url TEXT,
    webhook_secret TEXT,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    matched_at INTEGER,
    game_id BLOB,
    seat INTEGER,
    -- The table formed, seat by seat, as JSON: what makes its game again after a crash.
    plan TEXT,
    PRIMARY KEY (tenant, id)
);

-- One waiting ticket per player of a tenant: a second is `409 already_waiting`.
CREATE UNIQUE INDEX tickets_one_waiting_per_player ON tickets (tenant, player)
    WHERE status = 'waiting' AND player IS NOT NULL;

-- The matching pass reads the waiting tickets by pool, and the tables still being placed.
CREATE INDEX tickets_by_status ON tickets (status, tenant, rules);

-- A ticket found by its id alone (the id is its capability).
CREATE INDEX tickets_by_id ON tickets (id);
