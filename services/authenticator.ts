import type { Clock } from '../lib/clock.ts';
import { Errors } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { findKeyBySecretHash, touchLastUsed, type KeyLookupRow } from '../store/api-keys.ts';
import type { Db } from '../store/db.ts';
import { hashSecret, looksLikeSecret } from './api-key-secrets.ts';
import type { Principal } from './principal.ts';
import { cacheTtlMs, type InvalidationBus } from './invalidation-bus.ts';

interface CacheEntry {
  key: KeyLookupRow | null;
  /** When it was looked up: its age is checked against the TTL of the moment it is read. */
  at: number;
}

export interface AuthenticatorOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  hashKey: Buffer;
  revocations: InvalidationBus;
  cacheTtlMs: number;
  deploymentMode: 'self_hosted' | 'saas';
  maxEntries?: number;
}

const LAST_USED_EVERY_MS = 60_000;

/**
 * Turns a bearer secret into a Principal. Lookups (hits and misses) are cached for `cacheTtlMs`,
 * keyed by the secret's hash; revocations published on the bus drop entries at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly maxEntries: number;

  constructor(private readonly o: AuthenticatorOptions) {
    this.maxEntries = o.maxEntries ?? 50_000;
    o.revocations.subscribe((keyId) => this.forget(keyId));
  }

  /**
   * Resolves a bearer secret to a Principal.
   * @throws ProblemError 401 auth.unauthenticated, auth.api_key.expired or auth.api_key.revoked.
   */
  async authenticate(secret: string): Promise<Principal> {
    if (!looksLikeSecret(secret)) throw Errors.unauthenticated('The bearer credential is not a valid API key.');
    const hash = hashSecret(this.o.hashKey, secret);
    const cacheKey = hash.toString('base64');
    const nowMs = this.o.clock.now().getTime();
    let entry = this.cache.get(cacheKey);
    // The TTL is that of now, not of when the entry was stored: an entry cached while revocations
    // arrived over the bus (30 s) must not outlive 1 s once they cannot (Redis went away since).
    if (!entry || nowMs - entry.at >= this.ttlMs()) {
      entry = { key: await findKeyBySecretHash(this.o.db, hash), at: nowMs };
      this.remember(cacheKey, entry);
    }
    const key = entry.key;
    if (!key) throw Errors.unauthenticated('The API key is not valid.');
    if (key.revoked_at) throw Errors.apiKeyRevoked();
    if (key.expires_at && key.expires_at.getTime() <= nowMs) throw Errors.apiKeyExpired();
    this.noteUse(key, nowMs);
    return {
      type: 'api_key',
      org_id: key.org_id,
      org_display_name: key.org_display_name,
      actor_id: key.id,
      scopes: key.scopes,
      deployment_mode: this.o.deploymentMode,
      environment: key.environment,
    };
  }

  private ttlMs(): number {
    return cacheTtlMs(this.o.revocations, this.o.cacheTtlMs);
  }

  /** Drops cached entries for one key (null: all). */
  forget(keyId: string | null): void {
    if (keyId === null) {
      this.cache.clear();
      return;
    }
    for (const [k, v] of this.cache) if (v.key?.id === keyId) this.cache.delete(k);
  }

  private remember(cacheKey: string, entry: CacheEntry): void {
    if (this.o.cacheTtlMs <= 0) return;
    this.cache.delete(cacheKey);
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(cacheKey, entry);
  }

  /** Writes `last_used_at` at most once a minute per key per process, off the request path. */
  private noteUse(key: KeyLookupRow, nowMs: number): void {
    const last = this.lastUsedWritten.get(key.id) ?? 0;
    if (nowMs - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(key.id, nowMs);
    if (this.lastUsedWritten.size > this.maxEntries) this.lastUsedWritten.clear();
    touchLastUsed(this.o.db, key.org_id, key.id, new Date(nowMs)).catch((err: Error) =>
      this.o.logger.warn({ err: err.message, key_id: key.id }, 'could not record api key use'),
    );
  }
}
