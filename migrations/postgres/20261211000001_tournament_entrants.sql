-- A tournament's count of entrants, kept on its row by the transactions that enter and
-- withdraw (which hold that row): a read of a tournament of 10,000 entrants counts nothing.
-- One `DO` block: Citus passes a migration's text to its workers whole.

DO $$
BEGIN
    ALTER TABLE tournaments ADD COLUMN entrants BIGINT NOT NULL DEFAULT 0;
    UPDATE tournaments t SET entrants = c.n
    FROM (SELECT tournament_id, COUNT(*) AS n FROM tournament_entries WHERE status = 'entered' GROUP BY tournament_id) c
    WHERE c.tournament_id = t.id;
END
$$;
