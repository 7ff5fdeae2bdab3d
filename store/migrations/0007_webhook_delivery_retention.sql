-- Finished deliveries, oldest first: what the prune-webhook-deliveries job deletes past
-- WEBHOOK_DELIVERY_RETENTION_DAYS (every organization's rows: a system job).
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (created_at) WHERE status IN ('succeeded', 'dead_lettered');
