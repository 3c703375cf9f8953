-- Tenancy: each game belongs to the tenant of the server key that created it ('' when the
-- service runs without server keys). `created_us` (microseconds) orders a tenant's games
-- newest first for listing; the indexes serve that listing by keyset, with or without a
-- status filter, however many games there are.

ALTER TABLE games ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN created_us BIGINT NOT NULL DEFAULT 0;
UPDATE games SET created_us = created_at * 1000000;

CREATE INDEX games_by_tenant ON games (tenant, created_us DESC, id DESC);
CREATE INDEX games_by_tenant_status ON games (tenant, status, created_us DESC, id DESC);
