/**
 * How many of the pool's threads each tenant may use right now: all of them while it is alone, all but
 * `reserved` while another tenant is active (asked for inference within the last ACTIVE_MS). A slice
 * cannot always be short — one text of the sentence encoder (4,000 characters, 16 windows) is ~40 ms —
 * so a tenant arriving with a small request finds a thread free instead of waiting behind one.
 */

// How long after its last request a tenant counts as active (the others keep the reserved threads free for it).
const ACTIVE_MS = 1_000;

export class TenantShares {
  /** Tasks running that carry each tenant's pieces. */
  private readonly running = new Map<string, number>();
  /** When each tenant last asked for inference, oldest first. */
  private readonly lastSeen = new Map<string, number>();
  private readonly reserve: number;

  constructor(
    private readonly threads: number,
    reserved: number,
  ) {
    this.reserve = Math.max(0, Math.min(reserved, threads - 1));
  }

  /** The tenant asks for inference now. */
  seen(tenant: string): void {
    const now = performance.now();
    this.lastSeen.delete(tenant);
    this.lastSeen.set(tenant, now);
    for (const [t, at] of this.lastSeen) {
      if (now - at < ACTIVE_MS) break;
      this.lastSeen.delete(t);
    }
  }

  /** Whether a tenant may have one more task running now (read live as tasks start within one pump). */
  eligible(): (tenant: string) => boolean {
    if (this.reserve === 0) return () => true;
    const now = performance.now();
    let active = 0;
    let last: string | undefined;
    for (const [t, at] of this.lastSeen)
      if (now - at < ACTIVE_MS) {
        active++;
        last = t;
      }
    return (tenant) => {
      const others = active > 1 || (active === 1 && last !== tenant);
      return (this.running.get(tenant) ?? 0) < (others ? this.threads - this.reserve : this.threads);
    };
  }

  /** A task carrying these tenants' pieces started. */
  started(tenants: Iterable<string>): void {
    for (const t of tenants) this.running.set(t, (this.running.get(t) ?? 0) + 1);
  }

  /** A task carrying these tenants' pieces finished. */
  finished(tenants: Iterable<string>): void {
    for (const t of tenants) {
      const n = (this.running.get(t) ?? 1) - 1;
      if (n > 0) this.running.set(t, n);
      else this.running.delete(t);
    }
  }
}
