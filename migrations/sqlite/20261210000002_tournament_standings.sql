-- A tournament's standings after each round (docs/tournaments.md#scoring), written once, in
-- the transaction that closes the round (the one that starts the next, or finishes it): one
-- row per entrant, `position` its index in the order of the standings (from 0), `rank` the
-- rank it shows (ties share one). A page is a range of the primary key; a player's standing
-- one row of the second index: no read recounts the games.

CREATE TABLE tournament_standings (
    tournament_id BLOB NOT NULL,
    round INTEGER NOT NULL,
    position INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    player TEXT NOT NULL,
    name TEXT NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (tournament_id, round, position)
);

CREATE UNIQUE INDEX tournament_standings_by_player ON tournament_standings (tournament_id, round, player);
