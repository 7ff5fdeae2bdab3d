-- People and sign-in (issue 19): organizations linked to the identity provider, users provisioned from
-- SSO session tokens, invites, deleted-organization tombstones, and organization-create idempotency.

-- The identity provider's id for the organization (the session token's org_id claim). Organizations
-- created locally (the CLI, self-hosted) are their own external id, so a self-hosted issuer names them
-- by the id the operator bootstrapped.
ALTER TABLE organizations ADD COLUMN external_id text;
UPDATE organizations SET external_id = id WHERE external_id IS NULL;
ALTER TABLE organizations ALTER COLUMN external_id SET NOT NULL;
ALTER TABLE organizations ADD CONSTRAINT organizations_external_id_key UNIQUE (external_id);

CREATE TABLE users (
  id                text PRIMARY KEY,
  org_id            text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- the token's sub: one user row per (organization, subject), whatever the order of first requests
  external_subject  text NOT NULL,
  email             text,
  role              text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at        timestamptz NOT NULL,
  -- a removed member keeps a row: a session token still naming the organization must not re-provision them
  removed_at        timestamptz,
  UNIQUE (org_id, external_subject)
);
CREATE INDEX users_org_page_idx ON users (org_id, created_at DESC, id DESC) WHERE removed_at IS NULL;

CREATE TABLE invites (
  id            text PRIMARY KEY,
  org_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email         text NOT NULL,
  role          text NOT NULL CHECK (role IN ('admin', 'member')),
  -- SHA-256 of the 32-byte token; the token itself is never stored
  token_hash    bytea NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  created_by    text,
  accepted_at   timestamptz,
  accepted_by   text,
  revoked_at    timestamptz
);
CREATE INDEX invites_org_page_idx ON invites (org_id, id DESC);

-- An organization deleted here: a stale session token naming it is organization-less, never
-- re-provisioned. provider_deleted_at stays null until the identity provider confirmed its deletion.
CREATE TABLE deleted_organizations (
  external_id          text PRIMARY KEY,
  deleted_at           timestamptz NOT NULL,
  provider_deleted_at  timestamptz
);

-- POST /v1/organizations with Idempotency-Key: the caller has no organization yet, so the records are
-- keyed by the token's subject (spec: the pair subject + body is the dedup key for 24 hours).
CREATE TABLE organization_creations (
  subject        text NOT NULL,
  key            text NOT NULL,
  request_hash   bytea NOT NULL,
  -- null while the creation runs
  org_id         text REFERENCES organizations (id) ON DELETE CASCADE,
  locked_until   timestamptz NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  PRIMARY KEY (subject, key)
);
CREATE INDEX organization_creations_expiry_idx ON organization_creations (expires_at);
CREATE INDEX organization_creations_body_idx ON organization_creations (subject, request_hash);

ALTER TABLE audit_events DROP CONSTRAINT audit_events_resource_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_resource_type_check
  CHECK (resource_type IN ('api_key', 'policy', 'webhook', 'organization', 'invite', 'user'));
