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
-- rated game, in its own write, and claimed by the rating pass under a lease.

CREATE TABLE ratings (
    tenant TEXT NOT NULL,
    variant TEXT NOT NULL,
    participant TEXT NOT NULL,
    mean REAL NOT NULL,
    deviation REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    won INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (tenant, variant, participant)
);

-- A leaderboard's pages, by keyset: the conservative value down, then the participant.
CREATE INDEX ratings_board ON ratings (tenant, variant, (mean - 3 * deviation) DESC, participant);

CREATE TABLE rated_games (
    tenant TEXT NOT NULL,
    game_id BLOB NOT NULL,
    variant TEXT NOT NULL,
    changes TEXT NOT NULL,
    rated_at INTEGER NOT NULL,
    PRIMARY KEY (tenant, game_id)
);

CREATE TABLE ratings_due (
    game_id BLOB PRIMARY KEY,
    tenant TEXT NOT NULL,
    -- Unix milliseconds: when the game finished; and not while the pass holds its lease.
    due_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0
);
