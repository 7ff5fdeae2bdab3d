/**
 * Policies: create, replace, delete (each with its management audit row in the same transaction)
 * and read. Nothing here knows about HTTP.
 */
import type { Action } from '../../engine/detector.ts';
import {
  completeDetectorConfig,
  type Condition,
  type DetectorCatalog,
  type DetectorConfig,
  type DetectorConfigInput,
  type McpToolRef,
  type PolicyDocument,
  type PolicyMode,
} from '../../engine/policy.ts';
import { Errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { fetchPage, type Page } from '../../lib/keyset-page.ts';
import { withTransaction, type Queryable } from '../../store/db.ts';
import * as store from '../../store/policies.ts';
import type { PolicyRow } from '../../store/policies.ts';
import type { Actor } from '../api-keys.ts';
import { auditPolicy, describeChanges, describePolicy } from './audit-summaries.ts';
import type { PolicyDeps } from './deps.ts';

/** A validated create or replace body (api/routes/policies/schema.ts checks it). */
export interface PolicyInput {
  name: string;
  mode: PolicyMode;
  enabled: boolean;
  is_default?: boolean | undefined;
  rules: { id?: string | undefined; name: string; when: unknown; then: { action: Action; notify: string[] } }[];
  default_action: Action;
  detector_config: Record<string, DetectorConfigInput>;
  allowed_mcp_servers: string[];
  blocked_mcp_servers: string[];
  allowed_mcp_tools: McpToolRef[];
  blocked_mcp_tools: McpToolRef[];
}

/** The stored document of a validated body: rule ids assigned, detector thresholds completed. */
function documentOf(b: PolicyInput, catalog: DetectorCatalog, newRuleId: () => string): PolicyDocument {
  const detector_config: Record<string, DetectorConfig> = {};
  for (const [name, c] of Object.entries(b.detector_config))
    detector_config[name] = completeDetectorConfig(catalog.thresholdsOf(name), c);
  return {
    rules: b.rules.map((r) => ({
      id: r.id ?? newRuleId(),
      name: r.name,
      when: r.when as { all_of: Condition[] },
      then: { action: r.then.action, notify: r.then.notify },
    })),
    default_action: b.default_action,
    detector_config,
    allowed_mcp_servers: b.allowed_mcp_servers,
    blocked_mcp_servers: b.blocked_mcp_servers,
    allowed_mcp_tools: b.allowed_mcp_tools,
    blocked_mcp_tools: b.blocked_mcp_tools,
  };
}

/**
 * Creates a policy. `is_default: true` makes it the organization's default (the previous default,
 * if any, stops being one, recorded in the audit log).
 */
export async function createPolicy(
  deps: PolicyDeps,
  orgId: string,
  body: PolicyInput,
  actor: Actor,
): Promise<PolicyRow> {
  const now = deps.clock.now();
  const row: PolicyRow = {
    org_id: orgId,
    id: newId('policy', now.getTime()),
    revision_id: newId('policyRevision', now.getTime()),
    name: body.name,
    mode: body.mode,
    enabled: body.enabled,
    is_default: body.is_default ?? false,
    document: documentOf(body, deps.catalog, () => newId('policyRule', now.getTime())),
    created_at: now,
    updated_at: now,
  };
  const created = await withTransaction(deps.db, async (tx) => {
    // At most one default per organization (a unique index): clear the old one first.
    if (row.is_default) await takeDefault(tx, orgId, row.id, actor, now);
    const inserted = await store.insertPolicy(tx, row);
    await auditPolicy(tx, orgId, actor, now, row.id, `created policy ${describePolicy(inserted)}`);
    return inserted;
  });
  await deps.changes.publish(orgId);
  return created;
}

/**
 * Replaces a policy whole (a new `revision_id`; no history). `is_default` absent keeps the current
 * value, so a replace built from scratch never silently drops the organization's default.
 * @throws ProblemError 404 `policies.not_found`.
 */
export async function replacePolicy(
  deps: PolicyDeps,
  orgId: string,
  id: string,
  body: PolicyInput,
  actor: Actor,
): Promise<PolicyRow> {
  const now = deps.clock.now();
  const replaced = await withTransaction(deps.db, async (tx) => {
    const old = await store.getPolicy(tx, orgId, id, true);
    if (!old) throw Errors.policyNotFound(id);
    const oldRules = new Map(old.document.rules.map((r) => [r.id, r]));
    const next: PolicyRow = {
      ...old,
      revision_id: newId('policyRevision', now.getTime()),
      name: body.name,
      mode: body.mode,
      enabled: body.enabled,
      is_default: body.is_default ?? old.is_default,
      document: documentOf(body, deps.catalog, () => newId('policyRule', now.getTime())),
      updated_at: now,
    };
    if (next.is_default && !old.is_default) await takeDefault(tx, orgId, id, actor, now);
    const row = (await store.replacePolicy(tx, next))!;
    await auditPolicy(
      tx,
      orgId,
      actor,
      now,
      id,
      `replaced policy ${JSON.stringify(old.name)} (revision ${old.revision_id} → ${row.revision_id}): ${describeChanges(old, row, oldRules)}`,
    );
    return row;
  });
  await deps.changes.publish(orgId);
  return replaced;
}

/** @throws ProblemError 404 `policies.not_found`. */
export async function deletePolicy(deps: PolicyDeps, orgId: string, id: string, actor: Actor): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const gone = await store.deletePolicy(tx, orgId, id);
    if (!gone) throw Errors.policyNotFound(id);
    await auditPolicy(
      tx,
      orgId,
      actor,
      now,
      id,
      `deleted policy ${JSON.stringify(gone.name)}${gone.is_default ? ' (it was the default: scans now get the built-in thresholds)' : ''}`,
    );
  });
  await deps.changes.publish(orgId);
}

/** @throws ProblemError 404 `policies.not_found`. */
export async function getPolicy(db: Queryable, orgId: string, id: string): Promise<PolicyRow> {
  const row = await store.getPolicy(db, orgId, id);
  if (!row) throw Errors.policyNotFound(id);
  return row;
}

export async function listPolicies(
  db: Queryable,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<PolicyRow>> {
  return fetchPage(limit, (n) => store.listPolicies(db, orgId, { beforeId, limit: n }));
}

async function takeDefault(tx: Queryable, orgId: string, id: string, actor: Actor, now: Date): Promise<void> {
  for (const was of await store.clearDefault(tx, orgId, id))
    await auditPolicy(tx, orgId, actor, now, was, `policy ${was} is no longer the default: ${id} is`);
}
