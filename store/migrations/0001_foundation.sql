-- Organizations, API keys, the audit log and idempotency records.
-- Every tenant-owned table carries org_id, and every index used by a query leads with it.

CREATE TABLE organizations (
  id            text PRIMARY KEY,
  slug          text NOT NULL UNIQUE,
  display_name  text NOT NULL,
  created_at    timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  org_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name          text NOT NULL,
  environment   text NOT NULL CHECK (environment IN ('live', 'test')),
  last_four     text NOT NULL,
  -- HMAC-SHA256 of the secret under a key derived from SECRET_KEY; the secret itself is never stored.
  secret_hash   bytea NOT NULL UNIQUE,
  scopes        text[] NOT NULL CHECK (cardinality(scopes) > 0),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz,
  revoked_at    timestamptz,
  last_used_at  timestamptz,
  rotated_from  text REFERENCES api_keys (id),
  created_by    text
);
CREATE INDEX api_keys_org_page_idx ON api_keys (org_id, id DESC);

CREATE TABLE audit_events (
  id              text PRIMARY KEY,
  org_id          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('detection', 'management')),
  created         timestamptz NOT NULL,
  actor_id        text,
  request_id      text,
  scan_id         text,
  agent_id        text,
  session_id      text,
  surface         text,
  detector        text,
  score           double precision,
  action          text,
  owasp_tags      text[] NOT NULL DEFAULT '{}',
  mitre_tags      text[] NOT NULL DEFAULT '{}',
  resource_type   text CHECK (resource_type IN ('api_key', 'policy', 'webhook')),
  resource_id     text,
  change_summary  text
);
CREATE INDEX audit_events_org_page_idx ON audit_events (org_id, id DESC);

CREATE TABLE idempotency_keys (
  org_id            text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key               text NOT NULL,
  -- SHA-256 over method, route and body: a reuse on another route counts as a different body.
  request_hash      bytea NOT NULL,
  state             text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  locked_until      timestamptz NOT NULL,
  response_status   integer,
  response_headers  jsonb,
  response_body     bytea,
  created_at        timestamptz NOT NULL,
  expires_at        timestamptz NOT NULL,
  PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
