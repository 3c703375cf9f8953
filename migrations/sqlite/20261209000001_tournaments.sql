-- A studio's tournaments (docs/tournaments.md). A tournament is `open` (taking entries) until
-- its start, when the tournament pass claims it (`running`, `round` 1) by a conditional update,
-- once across replicas; `finished` after its last round, or `cancelled` before its start.
-- `rules` is the variant's ruleset and the turn clock as JSON; `secret` the seed every round's
-- seeds are derived from, never shown; `due_at` when the pass must look at it next (its start,
-- then its round's deadline), none once it is over. Times are unix ms.

CREATE TABLE tournaments (
    id BLOB PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    table_size INTEGER NOT NULL,
    format TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    deals_per_round INTEGER NOT NULL,
    starts_at INTEGER NOT NULL,
    max_entrants INTEGER NOT NULL,
    bot_level TEXT NOT NULL,
    round_seconds INTEGER NOT NULL,
    webhook_url TEXT,
    webhook_secret TEXT,
    secret TEXT NOT NULL,
    status TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    round_deadline INTEGER,
    due_at INTEGER,
    created_at INTEGER NOT NULL
);

-- The listing pages by keyset, newest first, one tenant's.
CREATE INDEX tournaments_by_tenant ON tournaments (tenant, created_at, id);

-- The tournament pass finds what is due by this index alone, whatever the number of others.
CREATE INDEX tournaments_due ON tournaments (due_at) WHERE due_at IS NOT NULL;

-- An entrant. `place` is their index in the field, given when the tournament starts (in the
-- order they entered); `status` is `entered` or `withdrawn`.
CREATE TABLE tournament_entries (
    tournament_id BLOB NOT NULL,
    id BLOB NOT NULL,
    player TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    place INTEGER,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, id)
);

-- A player enters a tournament once: a second is `409 already_entered`.
CREATE UNIQUE INDEX tournament_entries_one_per_player ON tournament_entries (tournament_id, player)
    WHERE status = 'entered';

-- A table of a round: its game (made after the plan commits, with this id) and who sits
-- where, seat by seat (an entrant's place, or null for a bot), as JSON.
CREATE TABLE tournament_tables (
    tournament_id BLOB NOT NULL,
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    game_id BLOB NOT NULL,
    seats TEXT NOT NULL,
    made BOOLEAN NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, round, table_no)
);

-- The tables whose game is still to be made (a replica stopped in between).
CREATE INDEX tournament_tables_unmade ON tournament_tables (tournament_id) WHERE made = 0;
