-- Players and rated games (issue 44). A seat may name the studio's own player id (`player`,
-- null for bots, open seats and seats without one); the studio's listing and a player's games
-- find games by it. A game is rated only when its creator asked (`rated`), fixed at creation.

ALTER TABLE seats ADD COLUMN player TEXT;
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX seats_by_player ON seats (player, game_id) WHERE player IS NOT NULL;
