-- Leaderboards at any depth (issue 51, docs/ratings.md#leaderboards).
--
-- `ratings_keyset` serves every page as one range of the index: the board's order is the
-- conservative value down, then the participant's bytes, which is this index's ascending order
-- (the value negated, exactly, and the key under the "C" collation, the one the statements
-- compare with). It replaces `ratings_board`, whose key was on the default collation, so that a
-- page after a cursor filtered every row before it.
--
-- `board_counts` counts a tenant's players per variant in buckets of the conservative value
-- (64 a unit, `floor(value * 64)`): a player's rank is the sum of the buckets above theirs and
-- the players of their own bucket ahead of them, a short range of `ratings_keyset`. The
-- transaction that rates a game moves the counts of the players it changes. Made here from the
-- ratings there are. On a Citus cluster it is distributed by tenant, co-located with `ratings`.
--
-- One DO block: Citus passes each statement's text on to its workers, and refuses a text of
-- several statements that change distributed tables.

DO $$
BEGIN
    CREATE INDEX ratings_keyset ON ratings (tenant, variant, (3 * deviation - mean), participant COLLATE "C");
    DROP INDEX ratings_board;
    CREATE TABLE board_counts (
        tenant TEXT NOT NULL,
        variant TEXT NOT NULL,
        bucket BIGINT NOT NULL,
        players BIGINT NOT NULL,
        PRIMARY KEY (tenant, variant, bucket)
    );
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('board_counts', 'tenant', colocate_with => 'ratings');
    END IF;
    -- Co-located by tenant with `ratings`: on a cluster each shard counts its own.
    INSERT INTO board_counts (tenant, variant, bucket, players)
        SELECT tenant, variant, floor((mean - 3 * deviation) * 64)::BIGINT, COUNT(*)
        FROM ratings WHERE participant LIKE 'player:%' GROUP BY 1, 2, 3;
END
$$;
