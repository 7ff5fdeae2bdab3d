/**
 * Admission of long scans, per tenant (organization): at most `perTenant` in progress at once in this
 * process, the others waiting their turn in order. A long scan's in-process work runs paced (lib/steps.ts),
 * a slice per turn of the event loop; without a bound, one organization sending many long texts at once
 * would have many slices in every turn, and everyone else's requests would wait behind them all.
 */
import { abortReason, ModelDeadlineError, ModelOverloadedError } from './model-client.ts';

interface Waiter {
  admit(): void;
  fail(err: Error): void;
}

// Long scans of one tenant allowed to wait here; one more is refused (503) rather than queued.
const MAX_WAITING_PER_TENANT = 64;

export class TenantGate {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(private readonly perTenant: number) {}

  /**
   * Resolves with the release function once the tenant may start another long scan.
   * @throws ModelOverloadedError (too many waiting), ModelDeadlineError (the deadline passed while waiting),
   *   the signal's reason (aborted while waiting)
   */
  acquire(tenant: string, deadlineAt: number, signal?: AbortSignal): Promise<() => void> {
    const release = once(() => this.release(tenant));
    const n = this.running.get(tenant) ?? 0;
    if (n < this.perTenant) {
      this.running.set(tenant, n + 1);
      return Promise.resolve(release);
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const queue = this.waiting.get(tenant) ?? [];
    if (queue.length >= MAX_WAITING_PER_TENANT) return Promise.reject(new ModelOverloadedError(1));
    this.waiting.set(tenant, queue);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const q = this.waiting.get(tenant);
        const i = q?.indexOf(waiter) ?? -1;
        if (i >= 0) q!.splice(i, 1);
        if (q && q.length === 0) this.waiting.delete(tenant);
      };
      const waiter: Waiter = {
        admit: () => {
          done();
          resolve(release);
        },
        fail: (err) => {
          done();
          reject(err);
        },
      };
      const onAbort = () => waiter.fail(abortReason(signal!));
      const timer = setTimeout(() => waiter.fail(new ModelDeadlineError()), Math.max(0, deadlineAt - Date.now()));
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  /** Long scans of this tenant in progress (for tests and metrics). */
  inProgress(tenant: string): number {
    return this.running.get(tenant) ?? 0;
  }

  private release(tenant: string): void {
    const next = this.waiting.get(tenant)?.[0];
    // the slot passes straight to the next in line
    if (next) return next.admit();
    const n = (this.running.get(tenant) ?? 1) - 1;
    if (n > 0) this.running.set(tenant, n);
    else this.running.delete(tenant);
  }
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}
