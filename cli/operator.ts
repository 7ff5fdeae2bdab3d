/**
 * The operator commands: they work on the database directly (server/runtime.ts), whether the server
 * is running or not: bootstrap, orgs list / set-legacy-quota, keys list / create / revoke / rotate.
 */
import { presentApiKey } from '../api/routes/api-keys/presenter.ts';
import { createApiKeyBody } from '../api/routes/api-keys/schema.ts';
import { issuesOf } from '../api/validate.ts';
import { systemClock } from '../lib/clock.ts';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey, type ApiKeyDeps } from '../services/api-keys.ts';
import { setLegacyQuota } from '../services/legacy-quota.ts';
import { bootstrapOrganization, resolveOrganization } from '../services/organizations.ts';
import { listOrgs } from '../store/orgs.ts';
import { out, required, UsageError, type CommandSpec, type Parsed } from './args.ts';
import type { Runtime } from '../server/runtime.ts';

/** What an operator command works with: the database runtime and the API key services. */
export interface OperatorContext {
  rt: Runtime;
  deps: ApiKeyDeps;
}

/** An operator command: its help and flags, and what it does. */
export interface OperatorCommand extends CommandSpec {
  run(ctx: OperatorContext, p: Parsed): Promise<void>;
}

const ORG = { org: { type: 'string' } } as const;
/** The operator, as audit rows name it. */
const ACTOR = { id: 'cli', requestId: null };
const SECRET_ONCE = 'This secret is shown once; store it now.';

/** `--quota`: a whole number of requests (0 refuses every request), or `default` (null: the configured default). */
function parseQuota(v: string): number | null {
  if (v === 'default') return null;
  if (!/^[0-9]{1,10}$/.test(v) || Number(v) > 2_147_483_647)
    throw new UsageError(`--quota must be a whole number from 0 to 2147483647, or "default"`);
  return Number(v);
}

const bootstrap: OperatorCommand = {
  name: 'bootstrap',
  usage: `  bootstrap --org NAME [--force] [--json]
      Create organization NAME (if none has that name) and an admin API key; prints the secret once
      (--json: {org_id, org, api_key: {id, secret, …}}). Refuses when the organization already has
      active keys, unless --force.`,
  flags: { ...ORG, force: { type: 'boolean' } },
  async run({ deps }, { values }) {
    const { org, createdOrg, minted } = await bootstrapOrganization(
      deps,
      required(values, 'org'),
      values.force === true,
    );
    const key = presentApiKey(minted.key, minted.secret);
    out(
      values.json === true,
      {
        org_id: org.id,
        org: { id: org.id, slug: org.slug, display_name: org.display_name, created: createdOrg },
        api_key: key,
      },
      `${createdOrg ? 'Created' : 'Using'} organization ${org.display_name} (${org.id}).\nAdmin API key ${key.id}, expires ${key.expires_at ?? 'never'}.\n\n  ${minted.secret}\n\n${SECRET_ONCE}`,
    );
  },
};

const orgsList: OperatorCommand = {
  name: 'orgs list',
  usage: `  orgs list [--json]
      Every organization: id, slug, display name.`,
  flags: {},
  async run({ rt }, { values }) {
    const orgs = await listOrgs(rt.db);
    out(
      values.json === true,
      { data: orgs },
      orgs.map((o) => `${o.id}  ${o.slug}  ${o.display_name}`).join('\n') || '(no organizations)',
    );
  },
};

const orgsSetLegacyQuota: OperatorCommand = {
  name: 'orgs set-legacy-quota',
  usage: `  orgs set-legacy-quota --org ORG --quota N|default [--json]
      Legacy API requests ORG may make per calendar month (UTC); default: LEGACY_MONTHLY_QUOTA.`,
  flags: { ...ORG, quota: { type: 'string' } },
  async run({ rt }, { values }) {
    const org = await resolveOrganization(rt.db, required(values, 'org'));
    const quota = parseQuota(required(values, 'quota'));
    await setLegacyQuota(rt.db, org.id, quota, ACTOR, systemClock.now());
    const shown = quota ?? 'the default (LEGACY_MONTHLY_QUOTA)';
    out(
      values.json === true,
      { org_id: org.id, legacy_monthly_quota: quota },
      `Legacy monthly quota of ${org.display_name} set to ${shown}.`,
    );
  },
};

const keysList: OperatorCommand = {
  name: 'keys list',
  usage: `  keys list --org ORG [--json]
      ORG's API keys, newest first (never their secrets).`,
  flags: { ...ORG },
  async run({ rt, deps }, { values }) {
    const org = await resolveOrganization(rt.db, required(values, 'org'));
    const all = [];
    let before: string | undefined;
    for (;;) {
      const { rows, more } = await listApiKeys(deps, org.id, before, 200);
      all.push(...rows.map((k) => presentApiKey(k)));
      if (!more) break;
      before = rows.at(-1)!.id;
    }
    out(
      values.json === true,
      { data: all },
      all
        .map(
          (k) =>
            `${k.id}  ${k.prefix}_…${k.last_four}  ${k.revoked_at ? 'revoked' : 'active '}  ${JSON.stringify(k.name)}  [${k.scopes.join(', ')}]  expires ${k.expires_at ?? 'never'}`,
        )
        .join('\n') || '(no keys)',
    );
  },
};

const keysCreate: OperatorCommand = {
  name: 'keys create',
  usage: `  keys create --org ORG --name NAME --scopes S1,S2 [--environment live|test]
              [--expires-at RFC3339 | --no-expiry] [--json]
      Mints an API key for ORG and prints its secret once (default expiry: API_KEY_DEFAULT_TTL_DAYS).`,
  flags: {
    ...ORG,
    name: { type: 'string' },
    scopes: { type: 'string' },
    environment: { type: 'string' },
    'expires-at': { type: 'string' },
    'no-expiry': { type: 'boolean' },
  },
  async run({ rt, deps }, { values }) {
    const org = await resolveOrganization(rt.db, required(values, 'org'));
    const parsed = createApiKeyBody.safeParse({
      name: required(values, 'name'),
      scopes: required(values, 'scopes')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      environment: values.environment,
      expires_at: values['expires-at'],
      no_expiry: values['no-expiry'] ?? false,
    });
    if (!parsed.success)
      throw new UsageError(
        issuesOf(parsed.error, '')
          .map((i) => `${i.path}: ${i.message}`)
          .join('; '),
      );
    const minted = await createApiKey(deps, org.id, parsed.data, ACTOR);
    const key = presentApiKey(minted.key, minted.secret);
    out(
      values.json === true,
      { org_id: org.id, api_key: key },
      `API key ${key.id} for ${org.display_name}.\n\n  ${minted.secret}\n\n${SECRET_ONCE}`,
    );
  },
};

const keysRevoke: OperatorCommand = {
  name: 'keys revoke',
  usage: `  keys revoke --org ORG --id ak_... [--json]
      Revokes the key; running servers stop accepting it within 1 s. Revoking a revoked key is a no-op.`,
  flags: { ...ORG, id: { type: 'string' } },
  async run({ rt, deps }, { values }) {
    const org = await resolveOrganization(rt.db, required(values, 'org'));
    const id = required(values, 'id');
    await revokeApiKey(deps, org.id, id, ACTOR);
    out(values.json === true, { revoked: id }, `Revoked ${id}.`);
  },
};

const keysRotate: OperatorCommand = {
  name: 'keys rotate',
  usage: `  keys rotate --org ORG --id ak_... [--json]
      Replaces the key with a new one (same name, scopes, environment and expiry; rotated_from set)
      and revokes the old one at once, as POST /v1/api-keys/{id}:rotate does; prints the new secret
      once (--json: {org_id, rotated_from, api_key: {id, secret, …}}). A revoked key cannot be rotated.`,
  flags: { ...ORG, id: { type: 'string' } },
  async run({ rt, deps }, { values }) {
    const org = await resolveOrganization(rt.db, required(values, 'org'));
    const id = required(values, 'id');
    const minted = await rotateApiKey(deps, org.id, id, ACTOR);
    const key = presentApiKey(minted.key, minted.secret);
    out(
      values.json === true,
      { org_id: org.id, rotated_from: id, api_key: key },
      `Rotated ${id}: it is revoked; its successor is ${key.id}.\n\n  ${minted.secret}\n\n${SECRET_ONCE}`,
    );
  },
};

/** The operator commands, in the order `help` lists them. */
export const OPERATOR_COMMANDS: readonly OperatorCommand[] = [
  bootstrap,
  orgsList,
  orgsSetLegacyQuota,
  keysList,
  keysCreate,
  keysRevoke,
  keysRotate,
];
