/** The management audit rows of policy changes, and the words they say about a policy and a replace. */
import { insertManagementAudit } from '../../store/audit.ts';
import type { Queryable } from '../../store/db.ts';
import type { PolicyRow } from '../../store/policies.ts';
import type { Actor } from '../api-keys.ts';

/** Writes a policy's management audit row, in the caller's transaction. */
export function auditPolicy(
  q: Queryable,
  orgId: string,
  actor: Actor,
  now: Date,
  id: string,
  summary: string,
): Promise<void> {
  return insertManagementAudit(q, orgId, {
    created: now,
    actorId: actor.id,
    requestId: actor.requestId,
    resourceType: 'policy',
    resourceId: id,
    changeSummary: summary,
  });
}

/** A policy in one line: name, mode, state, rule count, default action, detector and MCP lists. */
export function describePolicy(p: PolicyRow): string {
  const d = p.document;
  const lists =
    d.allowed_mcp_servers.length +
    d.blocked_mcp_servers.length +
    d.allowed_mcp_tools.length +
    d.blocked_mcp_tools.length;
  return `${JSON.stringify(p.name)} (${p.mode}, ${p.enabled ? 'enabled' : 'disabled'}${p.is_default ? ', default' : ''}, ${d.rules.length} rules, default_action ${d.default_action}, detector_config [${Object.keys(d.detector_config).join(', ')}], ${lists} MCP list entries)`;
}

/** What a replace changed, field by field, in words. */
export function describeChanges(
  old: PolicyRow,
  next: PolicyRow,
  oldRules: Map<string, PolicyRow['document']['rules'][number]>,
): string {
  const out: string[] = [];
  const scalar = (name: string, a: unknown, b: unknown) =>
    a !== b && out.push(`${name} ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
  scalar('name', old.name, next.name);
  scalar('mode', old.mode, next.mode);
  scalar('enabled', old.enabled, next.enabled);
  scalar('is_default', old.is_default, next.is_default);
  scalar('default_action', old.document.default_action, next.document.default_action);
  const newIds = new Set(next.document.rules.map((r) => r.id));
  const added = next.document.rules.filter((r) => !oldRules.has(r.id)).map((r) => r.id);
  const removed = [...oldRules.keys()].filter((id) => !newIds.has(id));
  const edited = next.document.rules
    .filter((r) => oldRules.has(r.id) && JSON.stringify(oldRules.get(r.id)) !== JSON.stringify(r))
    .map((r) => r.id);
  const order =
    JSON.stringify(old.document.rules.map((r) => r.id).filter((id) => newIds.has(id))) !==
    JSON.stringify(next.document.rules.map((r) => r.id).filter((id) => oldRules.has(id)));
  if (added.length) out.push(`rules added [${added.join(', ')}]`);
  if (removed.length) out.push(`rules removed [${removed.join(', ')}]`);
  if (edited.length) out.push(`rules changed [${edited.join(', ')}]`);
  if (order) out.push('rules reordered');
  for (const f of [
    'detector_config',
    'allowed_mcp_servers',
    'blocked_mcp_servers',
    'allowed_mcp_tools',
    'blocked_mcp_tools',
  ] as const) {
    if (JSON.stringify(old.document[f]) !== JSON.stringify(next.document[f])) out.push(`${f} changed`);
  }
  return out.length ? out.join('; ') : 'no field changed';
}
