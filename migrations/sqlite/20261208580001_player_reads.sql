-- A player's reads by an index (issue 58, docs/performance.md#player-reads). A player's
-- ratings (`GET /v1/players/{id}`) are read by tenant and participant, every variant: the
-- primary key leads with the variant after the tenant, so that read walked the tenant's whole
-- range of it. `ratings_by_participant` finds them by both columns, in the variants' order the
-- statement answers in.
CREATE INDEX ratings_by_participant ON ratings (tenant, participant, variant);
