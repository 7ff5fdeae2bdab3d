-- Outbound webhooks and their deliveries (docs/webhooks.md).

CREATE TABLE webhooks (
  org_id                      text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  id                          text NOT NULL,
  url                         text NOT NULL,
  description                 text,
  events                      text[] NOT NULL,
  include_content             boolean NOT NULL,
  active                      boolean NOT NULL DEFAULT true,
  -- signing secrets, AES-256-GCM (nonce | tag | ciphertext), bound to (org_id, id)
  secret_enc                  bytea NOT NULL,
  -- the secret before the last rotation, valid until previous_secret_expires_at (the grace period)
  previous_secret_enc         bytea,
  previous_secret_expires_at  timestamptz,
  -- failed attempts since the last success; webhook.failing is emitted when it reaches the threshold
  consecutive_failures        integer NOT NULL DEFAULT 0,
  last_failure_at             timestamptz,
  created_at                  timestamptz NOT NULL,
  PRIMARY KEY (org_id, id)
);

-- One row per (webhook, event) attempt chain: the outbox. Scan events are inserted in the scan's own
-- statement, so a committed scan's deliveries are never lost. No foreign key to webhooks: a scan
-- batch must not fail because a webhook was deleted meanwhile; the pump drops orphans.
CREATE TABLE webhook_deliveries (
  org_id            text NOT NULL,
  id                text NOT NULL,
  webhook_id        text NOT NULL,
  event_id          text NOT NULL,
  event_type        text NOT NULL,
  -- the envelope's `created`
  event_created     timestamptz NOT NULL,
  -- scan events: the envelope's data is built from the scan; other events carry their data here
  scan_id           text,
  data              jsonb,
  status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'dead_lettered')),
  attempt           integer NOT NULL DEFAULT 1 CHECK (attempt BETWEEN 1 AND 7),
  -- when attempt 1 started: the retry schedule is counted from it
  first_attempt_at  timestamptz,
  next_attempt_at   timestamptz,
  -- a pump holds the row while it sends; a crashed pump's rows become due again after this
  locked_until      timestamptz,
  response          jsonb,
  error             text,
  created_at        timestamptz NOT NULL,
  delivered_at      timestamptz,
  -- a redelivery's original delivery
  redelivery_of     text,
  PRIMARY KEY (org_id, id)
);
-- What the pump claims: due rows of every organization, oldest first.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');
-- The deliveries list: per webhook, newest first, optionally by status.
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (org_id, webhook_id, id DESC);
CREATE INDEX webhook_deliveries_status_idx ON webhook_deliveries (org_id, webhook_id, status, id DESC);
