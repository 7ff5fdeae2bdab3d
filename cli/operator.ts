/**
 * The operator commands' help and flags: they work on the database directly, whether the server is
 * running or not: bootstrap, orgs list / set-legacy-quota, keys list / create / revoke / rotate. What
 * each does is cli/operator-run.ts, loaded only to run one (so `--help` loads no database driver).
 */
import type { CommandSpec } from './args.ts';

const ORG = { org: { type: 'string' } } as const;

const bootstrap: CommandSpec = {
  name: 'bootstrap',
  usage: `  bootstrap --org NAME [--force] [--json]
      Create organization NAME (if none has that name) and an admin API key; prints the secret once
      (--json: {org_id, org, api_key: {id, secret, …}}). Refuses when the organization already has
      active keys, unless --force.`,
  flags: { ...ORG, force: { type: 'boolean' } },
};

const orgsList: CommandSpec = {
  name: 'orgs list',
  usage: `  orgs list [--json]
      Every organization: id, slug, display name.`,
  flags: {},
};

const orgsSetLegacyQuota: CommandSpec = {
  name: 'orgs set-legacy-quota',
  usage: `  orgs set-legacy-quota --org ORG --quota N|default [--json]
      Legacy API requests ORG may make per calendar month (UTC); default: LEGACY_MONTHLY_QUOTA.`,
  flags: { ...ORG, quota: { type: 'string' } },
};

const keysList: CommandSpec = {
  name: 'keys list',
  usage: `  keys list --org ORG [--json]
      ORG's API keys, newest first (never their secrets).`,
  flags: { ...ORG },
};

const keysCreate: CommandSpec = {
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
};

const keysRevoke: CommandSpec = {
  name: 'keys revoke',
  usage: `  keys revoke --org ORG --id ak_... [--json]
      Revokes the key; running servers stop accepting it within 1 s. Revoking a revoked key is a no-op.`,
  flags: { ...ORG, id: { type: 'string' } },
};

const keysRotate: CommandSpec = {
  name: 'keys rotate',
  usage: `  keys rotate --org ORG --id ak_... [--json]
      Replaces the key with a new one (same name, scopes, environment and expiry; rotated_from set)
      and revokes the old one at once, as POST /v1/api-keys/{id}:rotate does; prints the new secret
      once (--json: {org_id, rotated_from, api_key: {id, secret, …}}). A revoked key cannot be rotated.`,
  flags: { ...ORG, id: { type: 'string' } },
};

/** The operator commands, in the order `help` lists them. */
export const OPERATOR_COMMANDS: readonly CommandSpec[] = [
  bootstrap,
  orgsList,
  orgsSetLegacyQuota,
  keysList,
  keysCreate,
  keysRevoke,
  keysRotate,
];
