import type { Clock } from '../lib/clock.ts';
import type { Keyring } from '../lib/crypto.ts';
import { Errors, type ScopeEscalationAction } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { hasScope } from '../lib/scopes.ts';
import * as keys from '../store/api-keys.ts';
import type { ApiKeyRow } from '../store/api-keys.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction, type Db, type Queryable } from '../store/db.ts';
import { hashSecret, mintSecret } from './api-key-secrets.ts';
import type { InvalidationBus } from './invalidation-bus.ts';

export interface ApiKeyDeps {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  revocations: InvalidationBus;
  defaultTtlDays: number;
}

/** Who performs a change: an API key (with its scopes) or an operator at the CLI (no scopes: trusted). */
export interface Actor {
  id: string;
  requestId: string | null;
  scopes?: readonly string[];
}

/** A validated create body (api/routes/api-keys/schema.ts checks it). */
export interface CreateKeyInput {
  name: string;
  scopes: string[];
  environment: 'live' | 'test';
  expires_at?: Date | null;
  no_expiry?: boolean;
}

export interface MintedKey {
  key: ApiKeyRow;
  secret: string;
}

const DAY_MS = 86_400_000;

/**
 * Mints a key. Expiry: `no_expiry: true` → never; `expires_at` → that instant (must be in the
 * future); neither (or `expires_at: null`) → now + API_KEY_DEFAULT_TTL_DAYS (90 by default).
 * @throws ProblemError 400 when `expires_at` is not in the future; 403 when the actor would grant
 * scopes it lacks.
 */
export async function createApiKey(
  deps: ApiKeyDeps,
  orgId: string,
  input: CreateKeyInput,
  actor: Actor,
  tx?: Queryable,
): Promise<MintedKey> {
  const now = deps.clock.now();
  assertCanActOn(actor, input.scopes, 'grant');
  let expiresAt: Date | null;
  if (input.no_expiry) expiresAt = null;
  else if (input.expires_at) {
    if (input.expires_at.getTime() <= now.getTime()) {
      throw Errors.validationFailed([{ path: 'expires_at', message: 'must be in the future' }]);
    }
    expiresAt = input.expires_at;
  } else expiresAt = new Date(now.getTime() + deps.defaultTtlDays * DAY_MS);

  const scopes = [...new Set(input.scopes)];
  const run = async (q: Queryable): Promise<MintedKey> => {
    const minted = await insertNewKey(deps, q, orgId, actor, now, {
      name: input.name,
      environment: input.environment,
      scopes,
      expires_at: expiresAt,
      rotated_from: null,
    });
    await audit(
      q,
      orgId,
      actor,
      now,
      minted.key.id,
      `created ${input.environment} API key ${JSON.stringify(input.name)} with scopes [${scopes.join(', ')}], ${
        expiresAt ? `expiring ${expiresAt.toISOString()}` : 'with no expiry'
      }`,
    );
    return minted;
  };
  return tx ? run(tx) : withTransaction(deps.db, run);
}

/** One page of keys, newest first; fetches one extra row to know whether another page follows. */
export async function listApiKeys(
  deps: ApiKeyDeps,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<ApiKeyRow>> {
  return fetchPage(limit, (n) => keys.listApiKeys(deps.db, orgId, { beforeId, limit: n }));
}

/** @throws ProblemError 404 when the id is unknown in this organization. */
export async function getApiKey(deps: ApiKeyDeps, orgId: string, id: string): Promise<ApiKeyRow> {
  const key = await keys.getApiKey(deps.db, orgId, id);
  if (!key) throw Errors.apiKeyNotFound(id);
  return key;
}

/**
 * Revokes a key. Revoking an already revoked key is a no-op (revoked is terminal; `revoked_at`
 * keeps its first value). The revocation is published to every process before this resolves.
 * @throws ProblemError 404 when the id is unknown in this organization; 403 when the key holds a
 * scope the actor could not grant.
 */
export async function revokeApiKey(deps: ApiKeyDeps, orgId: string, id: string, actor: Actor): Promise<void> {
  const now = deps.clock.now();
  const revoked = await withTransaction(deps.db, async (tx) => {
    const key = await keys.getApiKey(tx, orgId, id, true);
    if (!key) throw Errors.apiKeyNotFound(id);
    assertCanActOn(actor, key.scopes, 'revoke');
    if (key.revoked_at) return false;
    await keys.markRevoked(tx, orgId, id, now);
    await audit(tx, orgId, actor, now, id, `revoked API key ${JSON.stringify(key.name)}`);
    return true;
  });
  if (revoked) await deps.revocations.publish(id);
}

/**
 * Rotates a key: revokes it at once (no grace) and mints a successor that inherits name, scopes,
 * environment and `expires_at` (not extended), with `rotated_from` set.
 * @throws ProblemError 404 when unknown in this organization; 403 when the key holds a scope the
 * actor could not grant; 409 when already revoked.
 */
export async function rotateApiKey(deps: ApiKeyDeps, orgId: string, id: string, actor: Actor): Promise<MintedKey> {
  const now = deps.clock.now();
  const minted = await withTransaction(deps.db, async (tx) => {
    const old = await keys.getApiKey(tx, orgId, id, true);
    if (!old) throw Errors.apiKeyNotFound(id);
    assertCanActOn(actor, old.scopes, 'rotate');
    if (old.revoked_at) throw Errors.apiKeyAlreadyRevoked(id);
    await keys.markRevoked(tx, orgId, id, now);
    const minted = await insertNewKey(deps, tx, orgId, actor, now, {
      name: old.name,
      environment: old.environment,
      scopes: old.scopes,
      expires_at: old.expires_at,
      rotated_from: old.id,
    });
    await audit(
      tx,
      orgId,
      actor,
      now,
      old.id,
      `rotated API key ${JSON.stringify(old.name)}: revoked, replaced by ${minted.key.id}`,
    );
    await audit(
      tx,
      orgId,
      actor,
      now,
      minted.key.id,
      `created API key ${JSON.stringify(old.name)} by rotation of ${old.id}`,
    );
    return minted;
  });
  await deps.revocations.publish(id);
  return minted;
}

type NewKeyFields = Pick<ApiKeyRow, 'name' | 'environment' | 'scopes' | 'expires_at' | 'rotated_from'>;

/** Mints a secret and inserts its key row (only the secret's keyed hash is stored). */
async function insertNewKey(
  deps: ApiKeyDeps,
  q: Queryable,
  orgId: string,
  actor: Actor,
  now: Date,
  fields: NewKeyFields,
): Promise<MintedKey> {
  const secret = mintSecret(fields.environment);
  const key = await keys.insertApiKey(
    q,
    orgId,
    {
      id: newId('apiKey', now.getTime()),
      ...fields,
      last_four: secret.slice(-4),
      created_at: now,
      revoked_at: null,
      last_used_at: null,
      created_by: actor.id,
    },
    hashSecret(deps.keyring.apiKeyHash, secret),
  );
  return { key, secret };
}

/** The management audit row of a key change, written in the change's transaction. */
function audit(
  q: Queryable,
  orgId: string,
  actor: Actor,
  now: Date,
  resourceId: string,
  changeSummary: string,
): Promise<void> {
  return insertManagementAudit(q, orgId, {
    created: now,
    actorId: actor.id,
    requestId: actor.requestId,
    resourceType: 'api_key',
    resourceId,
    changeSummary,
  });
}

/**
 * An API-key actor may only grant scopes it could use itself, and by the same rule only rotate or
 * revoke keys whose every scope it holds: a rotation hands out a successor with the old key's scopes,
 * and revoking a more privileged key would let a lesser (perhaps leaked) key lock its holders out.
 * Rotate and revoke call it after reading the key FOR UPDATE in their transaction (a key's scopes
 * never change, but the check and the change then see one row). The CLI actor has no scopes: trusted.
 */
function assertCanActOn(actor: Actor, scopes: readonly string[], action: ScopeEscalationAction): void {
  if (!actor.scopes) return;
  const missing = scopes.filter((s) => !hasScope(actor.scopes!, s as never));
  if (missing.length > 0) throw Errors.apiKeyScopeEscalation(missing, action);
}
