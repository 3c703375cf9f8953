-- A studio's tournaments (docs/tournaments.md). A tournament is `open` (taking entries) until
-- its start, when the tournament pass claims it (`running`, `round` 1) by a conditional update,
-- once across replicas; `finished` after its last round, or `cancelled` before its start.
-- `rules` is the variant's ruleset and the turn clock as JSON; `secret` the seed every round's
-- seeds are derived from, never shown; `due_at` when the pass must look at it next (its start,
-- then its round's deadline), none once it is over. Times are unix ms.
--
-- On a Citus cluster a tournament's rows (its entries, its tables) are distributed by the
-- tournament's id and co-located, so that a claim, an entry or a round's plan is one shard's
-- transaction; the games of its tables stay distributed by their own ids.

CREATE TABLE tournaments (
    id UUID PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    table_size BIGINT NOT NULL,
    format TEXT NOT NULL,
    rounds BIGINT NOT NULL,
    deals_per_round BIGINT NOT NULL,
    starts_at BIGINT NOT NULL,
    max_entrants BIGINT NOT NULL,
    bot_level TEXT NOT NULL,
    round_seconds BIGINT NOT NULL,
    webhook_url TEXT,
    webhook_secret TEXT,
    secret TEXT NOT NULL,
    status TEXT NOT NULL,
    round BIGINT NOT NULL DEFAULT 0,
    round_deadline BIGINT,
    due_at BIGINT,
    created_at BIGINT NOT NULL
);

-- The listing pages by keyset, newest first, one tenant's.
CREATE INDEX tournaments_by_tenant ON tournaments (tenant, created_at, id);

-- The tournament pass finds what is due by this index alone, whatever the number of others.
CREATE INDEX tournaments_due ON tournaments (due_at) WHERE due_at IS NOT NULL;

-- An entrant. `place` is their index in the field, given when the tournament starts (in the
-- order they entered); `status` is `entered` or `withdrawn`.
CREATE TABLE tournament_entries (
    tournament_id UUID NOT NULL,
    id UUID NOT NULL,
    player TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    place BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, id)
);

-- A player enters a tournament once: a second is `409 already_entered`.
CREATE UNIQUE INDEX tournament_entries_one_per_player ON tournament_entries (tournament_id, player)
    WHERE status = 'entered';

-- A table of a round: its game (made after the plan commits, with this id) and who sits
-- where, seat by seat (an entrant's place, or null for a bot), as JSON.
CREATE TABLE tournament_tables (
    tournament_id UUID NOT NULL,
    round BIGINT NOT NULL,
    table_no BIGINT NOT NULL,
    game_id UUID NOT NULL,
    seats TEXT NOT NULL,
    made BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (tournament_id, round, table_no)
);

-- The tables whose game is still to be made (a replica stopped in between).
CREATE INDEX tournament_tables_unmade ON tournament_tables (tournament_id) WHERE NOT made;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('tournaments', 'id');
        PERFORM create_distributed_table('tournament_entries', 'tournament_id', colocate_with => 'tournaments');
        PERFORM create_distributed_table('tournament_tables', 'tournament_id', colocate_with => 'tournaments');
    END IF;
END
$$;
