-- An idempotency key is now written only with the change it answers, in the same transaction
-- ('done' at once). Keys left 'running' by the former protocol answered nothing: drop them so
-- their requests can be retried.

DELETE FROM idempotency_keys WHERE status <> 'done';
DELETE FROM creation_keys WHERE status <> 'done';
