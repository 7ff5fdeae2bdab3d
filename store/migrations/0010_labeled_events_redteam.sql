-- Issue 20: the organization redaction policy, labeled events, evidence uploads, red-team runs and findings.

-- Every replace is a new row (the newest is the policy in force), so a labeled event keeps the
-- provenance of the policy that redacted it.
CREATE TABLE redaction_policies (
  id                              text PRIMARY KEY,
  org_id                          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  field_rules                     jsonb NOT NULL,
  default_obfuscation             text NOT NULL CHECK (default_obfuscation IN ('redact', 'hash', 'pass_through')),
  override_allowed_for_reviewers  boolean NOT NULL,
  redaction_version               text NOT NULL,
  created_at                      timestamptz NOT NULL,
  updated_at                      timestamptz NOT NULL
);
CREATE INDEX redaction_policies_org_idx ON redaction_policies (org_id, id DESC);

CREATE TABLE redteam_runs (
  id                      text PRIMARY KEY,
  org_id                  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  state                   text NOT NULL CHECK (state IN ('running', 'finished')),
  scope_hash              text NOT NULL,
  scope_redacted          jsonb,
  upload_enabled          boolean NOT NULL,
  training_consent        boolean NOT NULL,
  written_authorization   boolean NOT NULL,
  attached_authenticated  boolean NOT NULL,
  started_at              timestamptz NOT NULL,
  finished_at             timestamptz,
  verdict                 text,
  verdict_reason          text,
  model_versions          jsonb NOT NULL,
  corpus_hashes           jsonb NOT NULL,
  redteam_version         text NOT NULL,
  operator_id             text,
  created_by              text,
  created_at              timestamptz NOT NULL
);
CREATE INDEX redteam_runs_org_page_idx ON redteam_runs (org_id, id DESC);

CREATE TABLE redteam_findings (
  id                       text PRIMARY KEY,
  org_id                   text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  run_id                   text NOT NULL REFERENCES redteam_runs (id) ON DELETE CASCADE,
  attack_class             text NOT NULL,
  severity                 text NOT NULL,
  title                    text NOT NULL,
  description              text NOT NULL,
  framework_refs           jsonb NOT NULL,
  representative_event_id  text,
  remediation_class        text NOT NULL,
  created_at               timestamptz NOT NULL
);
CREATE INDEX redteam_findings_run_idx ON redteam_findings (org_id, run_id, id);

CREATE TABLE labeled_events (
  id                   text PRIMARY KEY,
  org_id               text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  source               text NOT NULL CHECK (source IN ('redteam', 'production_sample', 'feedback', 'reviewed')),
  observed_at          timestamptz NOT NULL,
  -- never the raw text: what the organization's redaction policy left of it
  input_redacted       text,
  output_redacted      text,
  verdict              text,
  verdict_confidence   double precision,
  verdict_reason       text,
  severity             text CHECK (severity IN ('critical', 'high', 'medium', 'low', 'info')),
  framework_refs       jsonb NOT NULL DEFAULT '[]',
  comparator           jsonb,
  source_data          jsonb,
  -- source_data.run_id, as a column: a run's events are listed by it
  run_id               text,
  training_consent     boolean NOT NULL,
  redaction_version    text NOT NULL,
  redaction_policy_id  text,
  evidence_blob_keys   jsonb NOT NULL DEFAULT '[]',
  created_at           timestamptz NOT NULL
);
CREATE INDEX labeled_events_org_page_idx ON labeled_events (org_id, observed_at DESC, id DESC);
CREATE INDEX labeled_events_run_idx ON labeled_events (org_id, run_id, observed_at DESC, id DESC) WHERE run_id IS NOT NULL;

CREATE TABLE evidence_uploads (
  storage_key   text PRIMARY KEY,
  org_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind          text NOT NULL,
  sha256        text NOT NULL,
  size_bytes    bigint NOT NULL,
  backend       text NOT NULL CHECK (backend IN ('local', 's3')),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  -- set once the bytes were received and their size and SHA-256 checked
  verified_at   timestamptz
);
CREATE INDEX evidence_uploads_org_idx ON evidence_uploads (org_id, created_at DESC);

ALTER TABLE audit_events DROP CONSTRAINT audit_events_resource_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_resource_type_check
  CHECK (resource_type IN ('api_key', 'policy', 'webhook', 'organization', 'invite', 'user',
                           'redaction_policy', 'labeled_event', 'redteam_run'));
