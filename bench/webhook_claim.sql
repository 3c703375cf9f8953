-- The webhook claim's cost with 100,000 deliveries pending in 1,000 games (100,000 games in all,
-- all but 50 of the 1,000 with their first delivery in flight): the candidate query of the build
-- before issue 51 against the claim of each game's head (rolled back). docs/performance.md#webhooks.
-- Usage: psql postgres://postgres@127.0.0.1:5432/postgres -f bench/webhook_claim.sql
DROP DATABASE IF EXISTS heads_explain;
CREATE DATABASE heads_explain;
\c heads_explain
CREATE TABLE games (id uuid PRIMARY KEY, webhook_url text, webhook_secret text);
CREATE TABLE webhook_deliveries (id text, game_id uuid REFERENCES games(id) ON DELETE CASCADE, seq bigint NOT NULL, version bigint NOT NULL, event text NOT NULL, status text NOT NULL, attempts bigint NOT NULL DEFAULT 0, next_attempt_at bigint NOT NULL, lease_until bigint NOT NULL DEFAULT 0, last_error text, created_at bigint NOT NULL, PRIMARY KEY (game_id, id), UNIQUE (game_id, seq));
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_pending_by_game ON webhook_deliveries (game_id, seq) WHERE status = 'pending';
CREATE TABLE webhook_heads (game_id UUID PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE, due_at BIGINT, last_seq BIGINT NOT NULL);
CREATE INDEX webhook_heads_due ON webhook_heads (due_at) WHERE due_at IS NOT NULL;
INSERT INTO games SELECT gen_random_uuid(), 'http://127.0.0.1:9/h', 'whsec_x' FROM generate_series(1, 100000);
-- 100 pending per game, plus 100 delivered each (history)
INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at)
SELECT 'm_' || g.id || '_' || n, g.id, n, n, '{"type":"x"}', CASE WHEN n <= 100 THEN 'delivered' ELSE 'pending' END, 1000 + n, 1000 + n
FROM (SELECT id FROM games LIMIT 1000) g, generate_series(1, 200) n;
-- a tenth of the games in flight (leased), the rest due
-- all but 50 games' first delivery in flight (leased): what a claim meets under load
UPDATE webhook_deliveries SET lease_until = 99999999999 WHERE seq = 101 AND game_id NOT IN (SELECT DISTINCT game_id FROM webhook_deliveries ORDER BY game_id LIMIT 50);
INSERT INTO webhook_heads SELECT game_id, CASE WHEN game_id IN (SELECT DISTINCT game_id FROM webhook_deliveries ORDER BY game_id LIMIT 50) THEN min(next_attempt_at) ELSE 99999999999 END, max(seq) FROM webhook_deliveries WHERE status = 'pending' GROUP BY game_id;
INSERT INTO webhook_heads SELECT id, NULL, 7 FROM games ON CONFLICT DO NOTHING;
ANALYZE;
SELECT count(*) AS pending FROM webhook_deliveries WHERE status = 'pending';
\echo == before: the candidate query of e9e0ed7
EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) SELECT d.game_id, d.id, g.webhook_url, g.webhook_secret, d.next_attempt_at
 FROM webhook_deliveries d JOIN games g ON g.id = d.game_id
 WHERE d.status = 'pending' AND d.next_attempt_at <= 5000 AND d.lease_until <= 5000
 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.game_id = d.game_id AND e.status = 'pending' AND e.seq < d.seq)
 ORDER BY d.next_attempt_at LIMIT 128;
\echo == after: the claim (rolled back)
BEGIN;
EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) WITH due AS (SELECT game_id FROM webhook_heads
    WHERE due_at IS NOT NULL AND due_at <= 5000 ORDER BY due_at LIMIT 128 FOR UPDATE SKIP LOCKED),
    leased AS (UPDATE webhook_heads h SET due_at = 35000 WHERE h.game_id = ANY (ARRAY(SELECT game_id FROM due)) RETURNING h.game_id)
    SELECT l.game_id, d.id, d.seq, d.version, d.event, d.attempts, d.created_at, d.next_attempt_at,
    g.webhook_url, g.webhook_secret FROM leased l
    LEFT JOIN LATERAL (SELECT e.id, e.seq, e.version, e.event, e.attempts, e.created_at, e.next_attempt_at
        FROM webhook_deliveries e WHERE e.game_id = l.game_id AND e.status = 'pending' ORDER BY e.seq LIMIT 1) d ON true
    LEFT JOIN LATERAL (SELECT webhook_url, webhook_secret FROM games WHERE id = l.game_id) g ON true;
ROLLBACK;
\c postgres
DROP DATABASE heads_explain;
