import { cacheTtlMs, type InvalidationBus } from './invalidation-bus.ts';

interface Entry<T> {
  value: T;
  at: number;
}

/**
 * A per-organization cache of values loaded from the database (compiled policies, webhook
 * subscriptions): entries are reloaded after `ttlMs` and dropped at once when the organization's
 * rows change (in this process, and in others through the bus; while the bus cannot reach other
 * processes, entries live at most 1 s). Misses are values too, so an organization without rows
 * costs no query per scan. Concurrent loads of one key share one query.
 */
export class OrgCache<T> {
  private readonly orgs = new Map<string, Map<string, Entry<T> | Promise<T>>>();

  constructor(
    private readonly changes: InvalidationBus,
    private readonly ttlMs: number,
    private readonly maxOrgs = 10_000,
  ) {
    changes.subscribe((orgId) => (orgId === null ? this.orgs.clear() : this.orgs.delete(orgId)));
  }

  /** The cached value of (`orgId`, `key`), or what `load` returns (then cached). */
  async get(orgId: string, key: string, load: () => Promise<T>): Promise<T> {
    let org = this.orgs.get(orgId);
    const hit = org?.get(key);
    if (hit instanceof Promise) return hit;
    if (hit && performance.now() - hit.at < cacheTtlMs(this.changes, this.ttlMs)) return hit.value;
    if (!org) {
      if (this.orgs.size >= this.maxOrgs) this.orgs.delete(this.orgs.keys().next().value!);
      this.orgs.set(orgId, (org = new Map()));
    }
    const loading = load();
    org.set(key, loading);
    try {
      const value = await loading;
      // An invalidation while loading replaced the org's map: do not resurrect a stale entry.
      if (this.orgs.get(orgId) === org) org.set(key, { value, at: performance.now() });
      return value;
    } catch (err) {
      if (org.get(key) === loading) org.delete(key);
      throw err;
    }
  }
}
