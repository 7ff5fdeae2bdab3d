import { parseArgs } from 'node:util';
import { SCOPES } from '../lib/scopes.ts';
import { presentApiKey } from '../api/routes/api-keys/presenter.ts';
import { createApiKeyBody } from '../api/routes/api-keys/schema.ts';
import { issuesOf } from '../api/validate.ts';
import { loadConfigOrReport } from '../config.ts';
import { systemClock } from '../lib/clock.ts';
import { ProblemError } from '../lib/errors.ts';
import { createLogger } from '../lib/logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyDeps } from '../services/api-keys.ts';
import { bootstrapOrganization, OperatorError, resolveOrganization } from '../services/organizations.ts';
import { TOPICS } from '../services/invalidation-bus.ts';
import { apiKeyServices, changesBus } from './services.ts';
import { listOrgs } from '../store/orgs.ts';
import { setLegacyQuota } from '../services/legacy-quota.ts';
import { redteamCommand, REDTEAM_USAGE } from './redteam-cli.ts';

const USAGE = `Content firewall operator CLI

Usage: npx content-firewall <command> [options]     (or: npm run -s cli -- <command> [options])

  bootstrap --org NAME [--force] [--json]
      Create organization NAME (if none has that name) and an admin API key; prints the secret once.
      Refuses when the organization already has active keys, unless --force.
  orgs list [--json]
  orgs set-legacy-quota --org ORG --quota N|default [--json]
      Legacy API requests ORG may make per calendar month (UTC); default: LEGACY_MONTHLY_QUOTA.
  keys list --org ORG [--json]
  keys create --org ORG --name NAME --scopes S1,S2 [--environment live|test]
              [--expires-at RFC3339 | --no-expiry] [--json]
  keys revoke --org ORG --id ak_... [--json]
${REDTEAM_USAGE}

  help
      This text (npx keeps --help for itself: use \`npx content-firewall help\`).

ORG is an organization id, slug or exact display name. The CLI reads the same configuration as the
server: DATABASE_URL, or the embedded database under DATA_DIR (default ./.data), used whether the
server is running or stopped. --json prints JSON only on stdout (logs go to stderr).

Scopes (--scopes, comma-separated; admin implies every other):
${wrap(SCOPES.join(', '), 96, '  ')}`;

/** `text` broken at spaces into lines of at most `width` characters, each after `indent`. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

class UsageError extends Error {}

const options = {
  org: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  environment: { type: 'string' },
  'expires-at': { type: 'string' },
  'no-expiry': { type: 'boolean' },
  id: { type: 'string' },
  quota: { type: 'string' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

function required(values: Values, name: 'org' | 'name' | 'scopes' | 'id' | 'quota'): string {
  const v = values[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

/** `--quota`: a whole number of requests (0 refuses every request), or `default` (null: the configured default). */
function parseQuota(v: string): number | null {
  if (v === 'default') return null;
  if (!/^[0-9]{1,10}$/.test(v) || Number(v) > 2_147_483_647)
    throw new UsageError(`--quota must be a whole number from 0 to 2147483647, or "default"`);
  return Number(v);
}

function out(json: boolean, data: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
}

async function execute(rt: Runtime, deps: ApiKeyDeps, positionals: string[], values: Values): Promise<void> {
  const json = values.json ?? false;
  const actor = { id: 'cli', requestId: null };
  const [group, verb] = positionals;
  const command = verb ? `${group} ${verb}` : group;
  switch (command) {
    case 'bootstrap': {
      const { org, createdOrg, minted } = await bootstrapOrganization(
        deps,
        required(values, 'org'),
        values.force ?? false,
      );
      const key = presentApiKey(minted.key, minted.secret);
      out(
        json,
        {
          org_id: org.id,
          org: { id: org.id, slug: org.slug, display_name: org.display_name, created: createdOrg },
          api_key: key,
        },
        `${createdOrg ? 'Created' : 'Using'} organization ${org.display_name} (${org.id}).\nAdmin API key ${key.id}, expires ${key.expires_at ?? 'never'}.\n\n  ${minted.secret}\n\nThis secret is shown once; store it now.`,
      );
      return;
    }
    case 'orgs list': {
      const orgs = await listOrgs(rt.db);
      out(
        json,
        { data: orgs },
        orgs.map((o) => `${o.id}  ${o.slug}  ${o.display_name}`).join('\n') || '(no organizations)',
      );
      return;
    }
    case 'orgs set-legacy-quota': {
      const org = await resolveOrganization(rt.db, required(values, 'org'));
      const quota = parseQuota(required(values, 'quota'));
      await setLegacyQuota(rt.db, org.id, quota, actor, systemClock.now());
      const shown = quota ?? 'the default (LEGACY_MONTHLY_QUOTA)';
      out(
        json,
        { org_id: org.id, legacy_monthly_quota: quota },
        `Legacy monthly quota of ${org.display_name} set to ${shown}.`,
      );
      return;
    }
    case 'keys list': {
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
        json,
        { data: all },
        all
          .map(
            (k) =>
              `${k.id}  ${k.prefix}_…${k.last_four}  ${k.revoked_at ? 'revoked' : 'active '}  ${JSON.stringify(k.name)}  [${k.scopes.join(', ')}]  expires ${k.expires_at ?? 'never'}`,
          )
          .join('\n') || '(no keys)',
      );
      return;
    }
    case 'keys create': {
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
      const minted = await createApiKey(deps, org.id, parsed.data, actor);
      const key = presentApiKey(minted.key, minted.secret);
      out(
        json,
        { org_id: org.id, api_key: key },
        `API key ${key.id} for ${org.display_name}.\n\n  ${minted.secret}\n\nThis secret is shown once; store it now.`,
      );
      return;
    }
    case 'keys revoke': {
      const org = await resolveOrganization(rt.db, required(values, 'org'));
      const id = required(values, 'id');
      await revokeApiKey(deps, org.id, id, actor);
      out(json, { revoked: id }, `Revoked ${id}.`);
      return;
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
  }
}

async function main(): Promise<number> {
  // An HTTP client of a running deployment: its own options, no database or configuration.
  if (process.argv[2] === 'redteam') return redteamCommand(process.argv.slice(3));
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help || parsed.positionals[0] === 'help' || parsed.positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return parsed.positionals.length === 0 && !parsed.values.help ? 2 : 0;
  }
  const config = loadConfigOrReport();
  if (!config) return 1;
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, process.stderr);
  const rt = await openRuntime(config, logger);
  // The same API key services as the server's, so a revocation reaches running servers at once.
  const revocations = changesBus({ config, redis: rt.redis, logger }, TOPICS.apiKeyRevoked);
  const deps = apiKeyServices({ config, db: rt.db, clock: systemClock, keyring: rt.keyring }, revocations);
  try {
    await execute(rt, deps, parsed.positionals, parsed.values);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof OperatorError || err instanceof ProblemError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await revocations.close();
    await rt.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  },
);
