/**
 * What the operator commands (cli/operator.ts) do, on the database directly (server/runtime.ts) with
 * the server's own API key services, whether the server is running or not.
 */
import { presentApiKey } from '../api/routes/api-keys/presenter.ts';
import { createApiKeyBody } from '../api/routes/api-keys/schema.ts';
import { issuesOf } from '../api/validate.ts';
import { loadConfigOrReport } from '../config.ts';
import { systemClock } from '../lib/clock.ts';
import { ProblemError } from '../lib/errors.ts';
import { createLogger } from '../lib/logger.ts';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey, type ApiKeyDeps } from '../services/api-keys.ts';
import { TOPICS } from '../services/invalidation-bus.ts';
import { setLegacyQuota } from '../services/legacy-quota.ts';
import { bootstrapOrganization, OperatorError, resolveOrganization } from '../services/organizations.ts';
import { listOrgs } from '../store/orgs.ts';
import { openRuntime, type Runtime } from '../server/runtime.ts';
import { apiKeyServices, changesBus } from '../server/services.ts';
import { out, required, UsageError, type Parsed } from './args.ts';

/** What an operator command works with: the database runtime and the API key services. */
interface OperatorContext {
  rt: Runtime;
  deps: ApiKeyDeps;
}

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

/** Each operator command's run, by its name in cli/operator.ts. */
const RUNS: Record<string, (ctx: OperatorContext, p: Parsed) => Promise<void>> = {
  bootstrap: async ({ deps }, { values }) => {
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
  'orgs list': async ({ rt }, { values }) => {
    const orgs = await listOrgs(rt.db);
    out(
      values.json === true,
      { data: orgs },
      orgs.map((o) => `${o.id}  ${o.slug}  ${o.display_name}`).join('\n') || '(no organizations)',
    );
  },
  'orgs set-legacy-quota': async ({ rt }, { values }) => {
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
  'keys list': async ({ rt, deps }, { values }) => {
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
  'keys create': async ({ rt, deps }, { values }) => {
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
  'keys revoke': async ({ rt, deps }, { values }) => {
    const org = await resolveOrganization(rt.db, required(values, 'org'));
    const id = required(values, 'id');
    await revokeApiKey(deps, org.id, id, ACTOR);
    out(values.json === true, { revoked: id }, `Revoked ${id}.`);
  },
  'keys rotate': async ({ rt, deps }, { values }) => {
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

/**
 * Runs the operator command `name` with the database runtime and the server's own API key services;
 * the exit code (1 when the configuration is invalid or the command is refused).
 * @throws UsageError for a bad flag value
 */
export async function runOperator(name: string, parsed: Parsed): Promise<number> {
  const run = RUNS[name];
  if (!run) throw new Error(`no operator command ${name}`);
  const config = loadConfigOrReport();
  if (!config) return 1;
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, process.stderr);
  const rt = await openRuntime(config, logger);
  // The same API key services as the server's, so a revocation reaches running servers at once.
  const revocations = changesBus({ config, redis: rt.redis, logger }, TOPICS.apiKeyRevoked);
  const deps = apiKeyServices({ config, db: rt.db, clock: systemClock, keyring: rt.keyring }, revocations);
  try {
    await run({ rt, deps }, parsed);
    return 0;
  } catch (err) {
    if (!(err instanceof OperatorError || err instanceof ProblemError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return 1;
  } finally {
    await revocations.close();
    await rt.close();
  }
}
