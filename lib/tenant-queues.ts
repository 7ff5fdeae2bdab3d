/**
 * One FIFO per tenant (organization), served in turn: the next task is headed by the oldest piece of
 * the tenant served least recently. A tenant with a deep backlog waits behind its own work; a tenant
 * arriving with one small request goes before every tenant already served since it was last, so it
 * waits for the tasks already running, whatever the others' backlogs.
 */
const always = () => true;

// Tenants whose last turn is remembered: far more than are ever active at once.
const MAX_REMEMBERED = 10_000;

export class TenantQueues<T> {
  /** Tenants with waiting work. */
  private readonly queues = new Map<string, T[]>();
  /** The turn at which each tenant was last served (absent: not recently). */
  private readonly served = new Map<string, number>();
  private turn = 0;
  private total = 0;

  get size(): number {
    return this.total;
  }

  /** Pieces this tenant has waiting. */
  sizeOf(tenant: string): number {
    return this.queues.get(tenant)?.length ?? 0;
  }

  push(tenant: string, item: T): void {
    let q = this.queues.get(tenant);
    if (!q) this.queues.set(tenant, (q = []));
    q.push(item);
    this.total++;
  }

  /**
   * The oldest piece of the tenant served least recently (among those `eligible` says may be served now);
   * that tenant's turn is then the newest.
   */
  take(eligible: (tenant: string) => boolean = always): T | undefined {
    let next: string | undefined;
    let last = Infinity;
    for (const tenant of this.queues.keys()) {
      if (!eligible(tenant)) continue;
      const t = this.served.get(tenant) ?? -1;
      if (t < last) [next, last] = [tenant, t];
    }
    if (next === undefined) return undefined;
    const q = this.queues.get(next)!;
    const item = q.shift()!;
    this.total--;
    if (q.length === 0) this.queues.delete(next);
    this.served.delete(next);
    this.served.set(next, ++this.turn);
    // Forget the oldest turns past a bound (a forgotten tenant counts as not recently served, which it was not).
    if (this.served.size > MAX_REMEMBERED) for (const t of this.served.keys()) if (this.served.delete(t)) break;
    return item;
  }

  /**
   * Offers waiting pieces (each tenant's oldest first, at most `perTenant` of each, of the tenants
   * `eligible` says may be served), and removes those `accept` takes: how a task fills up with other
   * tenants' small requests.
   */
  fill(perTenant: number, accept: (item: T) => boolean, eligible: (tenant: string) => boolean = always): void {
    for (const [tenant, q] of this.queues) {
      if (!eligible(tenant)) continue;
      for (let i = 0, seen = 0; i < q.length && seen < perTenant; seen++) {
        if (accept(q[i]!)) {
          q.splice(i, 1);
          this.total--;
        } else i++;
      }
      if (q.length === 0) this.queues.delete(tenant);
    }
  }

  /** Removes every waiting piece `match` selects; returns how many. */
  remove(tenant: string, match: (item: T) => boolean): number {
    const q = this.queues.get(tenant);
    if (!q) return 0;
    const kept = q.filter((item) => !match(item));
    const removed = q.length - kept.length;
    this.total -= removed;
    if (kept.length === 0) this.queues.delete(tenant);
    else if (removed > 0) this.queues.set(tenant, kept);
    return removed;
  }

  /** Empties every queue, returning what waited. */
  drain(): T[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    this.total = 0;
    return all;
  }
}
