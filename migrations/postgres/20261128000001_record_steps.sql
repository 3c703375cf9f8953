-- A game's record: on the first event each step of the game made (its deal, each action, a
-- studio calling it off), that step as JSON (`engine::Step`), so that the replay plays the
-- game again with the engine instead of guessing it from the events. Null on every other
-- event, and on every event of games played before this column.
ALTER TABLE events ADD COLUMN step TEXT;
