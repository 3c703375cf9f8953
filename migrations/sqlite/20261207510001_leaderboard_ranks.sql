-- Leaderboards at any depth (issue 51, docs/ratings.md#leaderboards).
--
-- `ratings_keyset` serves every page as one range of the index: the board's order is the
-- conservative value down, then the participant's bytes, which is this index's ascending order
-- (the value negated, exactly). It replaces `ratings_board`.
--
-- `board_counts` counts a tenant's players per variant in buckets of the conservative value
-- (64 a unit, `floor(value * 64)`): a player's rank is the sum of the buckets above theirs and
-- the players of their own bucket ahead of them, a short range of `ratings_keyset`. The
-- transaction that rates a game moves the counts of the players it changes. Made here from the
-- ratings there are (`floor` by a cast, which truncates, less one below zero).

CREATE INDEX ratings_keyset ON ratings (tenant, variant, (3 * deviation - mean), participant);
DROP INDEX ratings_board;

CREATE TABLE board_counts (
    tenant TEXT NOT NULL,
    variant TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    players INTEGER NOT NULL,
    PRIMARY KEY (tenant, variant, bucket)
);

INSERT INTO board_counts (tenant, variant, bucket, players)
    SELECT tenant, variant, bucket, COUNT(*) FROM (
        SELECT tenant, variant,
            CAST((mean - 3 * deviation) * 64 AS INTEGER)
                - ((mean - 3 * deviation) * 64 < CAST((mean - 3 * deviation) * 64 AS INTEGER)) AS bucket
        FROM ratings WHERE participant LIKE 'player:%'
    ) GROUP BY tenant, variant, bucket;
