-- Games, their seats, their append-only events, idempotency keys and service settings.

CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE games (
    id UUID PRIMARY KEY,
    variant TEXT NOT NULL,
    status TEXT NOT NULL,
    -- The serialised game (engine state, seats, options) as JSON text.
    state TEXT NOT NULL,
    version BIGINT NOT NULL,
    -- Secret until the game ends; the commitment is public from the start.
    seed TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE seats (
    game_id UUID NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat BIGINT NOT NULL,
    name TEXT,
    -- 'player' (named or joined), 'open' (waiting for a join) or 'bot'.
    kind TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE events (
    game_id UUID NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    -- The seat whose action or private information this event carries, if any.
    seat BIGINT,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE idempotency_keys (
    game_id UUID NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat BIGINT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    -- 'running' until the first request's response is stored, then 'done'.
    status TEXT NOT NULL,
    response_status BIGINT,
    response_headers TEXT,
    response_body BYTEA,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat, key)
);
