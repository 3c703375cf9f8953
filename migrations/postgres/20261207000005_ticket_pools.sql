-- Quick play's pools (a tenant's waiting tickets of equal rules and asynchrony), each with the
-- time it must next be matched: now when a ticket arrives or leaves, else the next moment the
-- clock alone could seat someone (a wait reaching the bots' time, a window widening), NULL when
-- only a ticket arriving or leaving can. A replica matches a pool while it holds the pool's row
-- (`FOR UPDATE SKIP LOCKED`): one replica at a time, on one server or across a Citus cluster's
-- nodes, where the row lives on its tenant's shard beside the tickets. Times are unix ms.
--
-- The pools of the tickets already waiting are due at once.

CREATE TABLE ticket_pools (
    tenant TEXT NOT NULL,
    rules TEXT NOT NULL,
    async BOOLEAN NOT NULL,
    due_at BIGINT,
    PRIMARY KEY (tenant, rules, async)
);

-- The pools due, found by time whatever the number of idle ones.
CREATE INDEX ticket_pools_due ON ticket_pools (due_at) WHERE due_at IS NOT NULL;

-- Filled while still a local table (on a cluster, from the distributed tickets through the
-- coordinator), then distributed with its rows.
DO $$
BEGIN
    INSERT INTO ticket_pools (tenant, rules, async, due_at)
        SELECT DISTINCT tenant, rules, async, 0 FROM tickets WHERE status = 'waiting';
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('ticket_pools', 'tenant', colocate_with => 'tickets');
    END IF;
END
$$;
