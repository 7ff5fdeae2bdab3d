-- Scans: one row per scan, written by the group-commit writer. Identifiers are time-ordered ULIDs,
-- so "newest first" and since/until windows are ranges over id: every list index ends in id and
-- leads with org_id, keeping filtered pages index-only range scans at 10 million rows per org.

CREATE TABLE scans (
  org_id              text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  id                  text NOT NULL,
  created_at          timestamptz NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('content', 'toolset')),
  surface             text NOT NULL,
  tier                text NOT NULL CHECK (tier IN ('fast', 'accurate', 'auto')),
  agent_id            text,
  session_id          text,
  mcp_server          text,
  trace_id            text,
  end_user_id_hash    text CHECK (end_user_id_hash ~ '^[0-9a-f]{64}$'),
  action              text NOT NULL CHECK (action IN ('blocked', 'flagged', 'warned', 'allowed')),
  -- {action, reason, policy_id, policy_revision_id, matched_rule_id, triggering_finding}
  decision            jsonb NOT NULL,
  -- [{detector, items, frameworks}] as returned
  findings            jsonb NOT NULL,
  -- {detector: score} for every detector that ran: policy simulation re-evaluates from these
  scores              jsonb NOT NULL,
  content_stored      boolean NOT NULL,
  -- the submitted ContentContainer, only when options.capture was true; cleared at content_expires_at
  content             jsonb,
  content_expires_at  timestamptz,
  content_chars       integer NOT NULL,
  latency_ms          real NOT NULL,
  api_key_id          text,
  request_id          text,
  PRIMARY KEY (org_id, id)
);

CREATE INDEX scans_org_agent_idx    ON scans (org_id, agent_id, id) WHERE agent_id IS NOT NULL;
CREATE INDEX scans_org_session_idx  ON scans (org_id, session_id, id) WHERE session_id IS NOT NULL;
CREATE INDEX scans_org_end_user_idx ON scans (org_id, end_user_id_hash, id) WHERE end_user_id_hash IS NOT NULL;
CREATE INDEX scans_org_action_idx   ON scans (org_id, action, id);
CREATE INDEX scans_org_surface_idx  ON scans (org_id, surface, id);
-- the retention job finds captured content past its expiry
CREATE INDEX scans_content_expiry_idx ON scans (content_expires_at) WHERE content IS NOT NULL;
