-- Ratings (issue 44, docs/ratings.md). `ratings` holds each participant's skill estimate per
-- tenant and variant: `participant` is `player:<the studio's id>` or `bot:<level>` (a level's
-- row missing means its seeded figure). `games` counts the rated games it played, `won` those
-- it won (its seat, or its team in push's partnerships, placed first).
--
-- `rated_games` is the exactly-once marker of a rated game (its primary key), written in the
-- transaction that updates `ratings`, with each seat's rating before and after (`changes`, JSON
-- text): what a finished game's view shows as `rating_change`.
--
-- `ratings_due` is the outbox of games to rate: a row written by the action that finishes a
-- rated game, in its own write, and claimed by the rating pass of any replica under a lease.

CREATE TABLE ratings (
    tenant TEXT NOT NULL,
    variant TEXT NOT NULL,
    participant TEXT NOT NULL,
    mean DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL DEFAULT 0,
    won BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant, variant, participant)
);

-- A leaderboard's pages, by keyset: the conservative value down, then the participant.
CREATE INDEX ratings_board ON ratings (tenant, variant, (mean - 3 * deviation) DESC, participant);

CREATE TABLE rated_games (
    tenant TEXT NOT NULL,
    game_id UUID NOT NULL,
    variant TEXT NOT NULL,
    changes TEXT NOT NULL,
    rated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant, game_id)
);

CREATE TABLE ratings_due (
    game_id UUID PRIMARY KEY,
    tenant TEXT NOT NULL,
    -- Unix milliseconds: when the game finished; and not while a replica holds its lease.
    due_at BIGINT NOT NULL,
    lease_until BIGINT NOT NULL DEFAULT 0
);
