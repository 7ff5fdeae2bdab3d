-- Issue 22: the legacy analysis API (docs/legacy.md): analysis sessions and the monthly request quota.

-- The per-organization quota override (null: the LEGACY_MONTHLY_QUOTA default), set by the operator
-- CLI, and the last analysis id handed out: ids are numbered per organization and never reused, so a
-- client still sending a deleted session's id gets 404, never a newer session's results.
ALTER TABLE organizations ADD COLUMN legacy_monthly_quota integer CHECK (legacy_monthly_quota >= 0);
ALTER TABLE organizations ADD COLUMN legacy_analysis_seq integer NOT NULL DEFAULT 0;

-- An analysis session: what the legacy path's {analysis_id} names (1, 2, 3 … in each organization).
CREATE TABLE legacy_analyses (
  org_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  analysis_id  integer NOT NULL CHECK (analysis_id > 0),
  name         text NOT NULL,
  description  text,
  created_by   text,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (org_id, analysis_id)
);

-- Allowed legacy requests per organization and calendar month (UTC); refused ones are not counted.
CREATE TABLE legacy_usage (
  org_id    text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  month     date NOT NULL CHECK (extract(day FROM month) = 1),
  requests  integer NOT NULL CHECK (requests >= 0),
  PRIMARY KEY (org_id, month)
);

ALTER TABLE audit_events DROP CONSTRAINT audit_events_resource_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_resource_type_check
  CHECK (resource_type IN ('api_key', 'policy', 'webhook', 'organization', 'invite', 'user',
                           'redaction_policy', 'labeled_event', 'redteam_run', 'legacy_analysis'));
