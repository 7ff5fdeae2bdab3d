/**
 * `npx content-firewall policies list|apply`: policies of a running deployment over its API. `apply`
 * makes the server match a JSON policy file (create, replace, or nothing when it already matches)
 * and prints what changed.
 */
import { readFile } from 'node:fs/promises';
import type { ContentFirewallClient } from '../client/index.ts';
import { call, clientOf, TARGET_FLAGS, targetOf } from './api-http.ts';
import { out, table, UsageError, type CommandSpec, type Parsed } from './args.ts';

/** `policies list`. */
export const POLICIES_LIST_COMMAND: CommandSpec = {
  name: 'policies list',
  usage: `  policies list [--target URL] [--key KEY] [--json]
      The organization's policies: id, name, mode, enabled, default, rules. KEY needs policies:read.`,
  flags: { ...TARGET_FLAGS },
};

/** `policies apply FILE`. */
export const POLICIES_APPLY_COMMAND: CommandSpec = {
  name: 'policies apply',
  usage: `  policies apply FILE [--dry-run] [--target URL] [--key KEY] [--json]
      Makes the deployment match the JSON policy FILE (the body of POST /v1/policies; docs/policies.md):
      the policy with the file's "id", else the one with the file's "name", is replaced when it
      differs (a new revision) and left alone when it matches; none: it is created. Prints created,
      updated (with the fields that changed) or unchanged; --dry-run only says what it would do.
      A file the API refuses prints the problem and each invalid field, exit 1. KEY needs
      policies:read and policies:write.`,
  flags: { ...TARGET_FLAGS, 'dry-run': { type: 'boolean' } },
  operands: 1,
};

/** A Policy resource as the API returns it (the fields apply compares, and the rest). */
type Policy = Record<string, unknown> & { id: string; name: string; revision_id: string };

/** Fields of a Policy the server sets: a file may carry them (one saved from the API); apply drops them. */
const SERVER_FIELDS = ['id', 'revision_id', 'created_at', 'updated_at'];

/** The body of `POST /v1/policies` and `PUT /v1/policies/{policy_id}`: the file's, which the API checks. */
type PolicyBody = Parameters<ContentFirewallClient['policies']['create']>[0];

/** Every policy of the organization, oldest page last. */
async function allPolicies(client: ContentFirewallClient): Promise<Policy[]> {
  const all: Policy[] = [];
  for await (const p of client.paginate((q) => call(client.policies.list, q), { limit: 200 })) all.push(p);
  return all;
}

/** Runs `policies list`. */
export async function policiesListCommand({ values }: Parsed): Promise<number> {
  const policies = await allPolicies(clientOf(targetOf(values)));
  const rows = policies.map((p) => [
    p.id,
    String(p.mode),
    p.enabled ? 'yes' : 'no',
    p.is_default ? 'yes' : 'no',
    String((p.rules as unknown[]).length),
    p.name,
  ]);
  out(
    values.json === true,
    { data: policies },
    rows.length ? table(['id', 'mode', 'enabled', 'default', 'rules', 'name'], rows) : '(no policies)',
  );
  return 0;
}

/** The policy file: a JSON object. @throws Error naming the file when it is unreadable or not one. */
async function readPolicyFile(file: string): Promise<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file}: not a JSON object`);
  return doc as Record<string, unknown>;
}

/** JSON with object keys sorted, so two equal values print the same. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'object' && x !== null && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}

type Thresholds = { warn_above: number; flag_above: number; block_above: number };

/** The built-in thresholds of every detector (`GET /v1/detectors`), to complete `detector_config`. */
async function builtinThresholds(client: ContentFirewallClient): Promise<Map<string, Thresholds>> {
  const page = await call(client.detectors.list, { limit: 200 });
  return new Map(page.data.map((d) => [d.name, d.thresholds]));
}

type Entry = Partial<Thresholds> & { enabled?: boolean };

/**
 * What the server would store for `body` over `current`, in the resource's terms: the API's defaults
 * filled in, `detector_config` completed from the built-in thresholds, `is_default` kept when absent,
 * and a rule without an `id` compared without it (the server would give it a new one).
 */
function desiredOf(body: Record<string, unknown>, current: Policy, builtin: Map<string, Thresholds>) {
  const config: Record<string, unknown> = {};
  for (const [name, e] of Object.entries((body.detector_config ?? {}) as Record<string, Entry>)) {
    const t = builtin.get(name);
    config[name] = t ? { enabled: e.enabled ?? true, ...t, ...e } : e;
  }
  const currentRules = (current.rules ?? []) as { id?: string }[];
  const rules = Array.isArray(body.rules)
    ? (body.rules as Record<string, unknown>[]).map((r, i) => ({
        id: currentRules[i]?.id,
        ...r,
        then: { notify: [], ...(r.then as object) },
      }))
    : body.rules;
  return {
    mode: 'enforce',
    enabled: true,
    is_default: current.is_default,
    allowed_mcp_servers: [],
    blocked_mcp_servers: [],
    allowed_mcp_tools: [],
    blocked_mcp_tools: [],
    ...body,
    detector_config: config,
    rules,
  } as Record<string, unknown>;
}

/** The top-level fields where `desired` differs from `current`. */
function changedFields(desired: Record<string, unknown>, current: Policy): string[] {
  return Object.keys(desired).filter((k) => canonical(desired[k]) !== canonical(current[k]));
}

/** Finds the policy the file names: by `id`, else by exact `name`. @throws Error when the name is ambiguous. */
async function findExisting(client: ContentFirewallClient, id: unknown, name: unknown): Promise<Policy | null> {
  if (typeof id === 'string') return call(client.policies.get, id);
  const same = (await allPolicies(client)).filter((p) => p.name === name);
  if (same.length > 1)
    throw new Error(
      `${same.length} policies are named ${JSON.stringify(name)}: give the file an "id" (${same.map((p) => p.id).join(', ')})`,
    );
  return same[0] ?? null;
}

/** What apply did (or, with --dry-run, would do). */
interface Outcome {
  action: 'created' | 'updated' | 'unchanged';
  changes: string[];
  policy: Policy | null;
}

/** Creates, replaces or leaves the policy so the server matches `body`. */
async function applyBody(
  client: ContentFirewallClient,
  doc: Record<string, unknown>,
  dryRun: boolean,
): Promise<Outcome> {
  const body = Object.fromEntries(Object.entries(doc).filter(([k]) => !SERVER_FIELDS.includes(k)));
  const existing = await findExisting(client, doc.id, doc.name);
  if (!existing) {
    if (dryRun) return { action: 'created', changes: [], policy: null };
    return { action: 'created', changes: [], policy: await call(client.policies.create, body as PolicyBody) };
  }
  const builtin = body.detector_config ? await builtinThresholds(client) : new Map<string, Thresholds>();
  const changes = changedFields(desiredOf(body, existing, builtin), existing);
  if (changes.length === 0) return { action: 'unchanged', changes, policy: existing };
  if (dryRun) return { action: 'updated', changes, policy: existing };
  const policy = await call(client.policies.replace, existing.id, body as PolicyBody);
  return { action: 'updated', changes, policy };
}

/**
 * Runs `policies apply FILE`.
 * @throws ApiProblem when the API refuses the file (a validation problem lists each field).
 */
export async function policiesApplyCommand({ values, operands }: Parsed): Promise<number> {
  const file = operands[0];
  if (!file) throw new UsageError('policies apply needs the policy FILE');
  const client = clientOf(targetOf(values));
  const doc = await readPolicyFile(file);
  const dryRun = values['dry-run'] === true;
  const r = await applyBody(client, doc, dryRun);
  const would = dryRun ? 'would be ' : '';
  const named = `${r.policy?.id ?? 'new policy'} ${JSON.stringify(doc.name)}`;
  const text =
    r.action === 'updated'
      ? `${named} ${would}updated: ${r.changes.join(', ')}${dryRun ? '' : ` (revision ${String(r.policy?.revision_id)})`}`
      : `${named} ${r.action === 'created' ? `${would}created` : 'unchanged'}`;
  out(values.json === true, { ...r, dry_run: dryRun }, text);
  return 0;
}
