-- Quick play's pools (a tenant's waiting tickets of equal rules and asynchrony), each with the
-- time it must next be matched: now when a ticket arrives or leaves, else the next moment the
-- clock alone could seat someone (a wait reaching the bots' time, a window widening), NULL when
-- only a ticket arriving or leaving can. Times are unix ms.
--
-- The pools of the tickets already waiting are due at once.

CREATE TABLE ticket_pools (
    tenant TEXT NOT NULL,
    rules TEXT NOT NULL,
    async BOOLEAN NOT NULL,
    due_at INTEGER,
    PRIMARY KEY (tenant, rules, async)
);

-- The pools due, found by time whatever the number of idle ones.
CREATE INDEX ticket_pools_due ON ticket_pools (due_at) WHERE due_at IS NOT NULL;

INSERT INTO ticket_pools (tenant, rules, async, due_at)
    SELECT DISTINCT tenant, rules, async, 0 FROM tickets WHERE status = 'waiting';
