-- Idempotency keys of `POST /v1/games`. There is no game or seat yet, so a key is global:
-- `game_id` is always the nil UUID and `seat` -1, which lets the same SQL serve both tables.

CREATE TABLE creation_keys (
    game_id UUID NOT NULL,
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
