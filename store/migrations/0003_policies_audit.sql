-- Policies, the columns a stored scan needs for policy re-evaluation, and audit query indexes.

-- One row per policy; a replace overwrites the row and mints a new revision_id (no history, as the
-- spec says; the management audit event records what changed).
CREATE TABLE policies (
  org_id          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  id              text NOT NULL,
  revision_id     text NOT NULL,
  name            text NOT NULL,
  mode            text NOT NULL CHECK (mode IN ('enforce', 'observe')),
  enabled         boolean NOT NULL,
  -- the organization's default policy: applied to scans that name none (at most one per organization)
  is_default      boolean NOT NULL,
  -- {rules, default_action, detector_config, allowed_mcp_servers, blocked_mcp_servers,
  --  allowed_mcp_tools, blocked_mcp_tools} exactly as returned
  document        jsonb NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX policies_one_default_idx ON policies (org_id) WHERE is_default;

-- Toolset scans: the [{server, tool_name}] they listed, so MCP tool lists can be re-evaluated
-- (simulate, backtest) without captured content. NULL for content scans.
ALTER TABLE scans ADD COLUMN mcp_tools jsonb;
-- Observe mode: the action the policy would have taken (scans.action is what the caller received).
ALTER TABLE scans ADD COLUMN observed_action text CHECK (observed_action IN ('blocked', 'flagged', 'warned', 'allowed'));

-- Detection events flag observe-mode decisions (action = the would-be action, enforced = false).
ALTER TABLE audit_events ADD COLUMN enforced boolean;

-- Audit queries: every filter is an equality plus an id range (ids are time-ordered), newest first.
CREATE INDEX audit_events_org_kind_idx     ON audit_events (org_id, kind, id DESC);
CREATE INDEX audit_events_org_resource_idx ON audit_events (org_id, resource_type, resource_id, id DESC) WHERE resource_type IS NOT NULL;
CREATE INDEX audit_events_org_actor_idx    ON audit_events (org_id, actor_id, id DESC) WHERE actor_id IS NOT NULL;
CREATE INDEX audit_events_org_agent_idx    ON audit_events (org_id, agent_id, id DESC) WHERE agent_id IS NOT NULL;
CREATE INDEX audit_events_org_action_idx   ON audit_events (org_id, action, id DESC) WHERE action IS NOT NULL;
