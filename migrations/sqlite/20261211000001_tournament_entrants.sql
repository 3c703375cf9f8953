-- A tournament's count of entrants, kept on its row by the transactions that enter and
-- withdraw (which hold that row): a read of a tournament of 10,000 entrants counts nothing.

ALTER TABLE tournaments ADD COLUMN entrants INTEGER NOT NULL DEFAULT 0;

UPDATE tournaments SET entrants = (
    SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = tournaments.id AND e.status = 'entered'
);
