import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Redis } from '../lib/redis.ts';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window resets (≥ 1). */
  resetSeconds: number;
  windowSeconds: number;
}

/**
 * Fixed windows aligned to the epoch, so every process (and Redis) agrees on where a window starts.
 * One counter per (bucket, window).
 */
export interface RateLimiter {
  /** Adds `cost` (default 1; negative gives back) to the bucket's counter of the current window. */
  hit(bucket: string, limit: number, windowSeconds: number, cost?: number): Promise<RateLimitDecision>;
  /**
   * The bucket's current window without counting: `allowed` says whether one more `hit` would be. For
   * budgets spent only by failures (wrong `/metrics` tokens), checked before the attempt is judged.
   */
  peek(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

function decide(count: number, limit: number, windowSeconds: number, nowMs: number): RateLimitDecision {
  const windowMs = windowSeconds * 1000;
  const resetSeconds = Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds, windowSeconds };
}

/** `peek`'s answer for a window holding `count` hits: what the next hit would decide, before it counts. */
function decidePeek(count: number, limit: number, windowSeconds: number, nowMs: number): RateLimitDecision {
  return { ...decide(count + 1, limit, windowSeconds, nowMs), remaining: Math.max(0, limit - count) };
}

/** In-process counters: correct for one process. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, { endsAt: number; count: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly clock: Clock) {
    this.sweeper = setInterval(() => this.sweep(), 60_000).unref();
  }

  async hit(bucket: string, limit: number, windowSeconds: number, cost = 1): Promise<RateLimitDecision> {
    const nowMs = this.clock.now().getTime();
    const windowMs = windowSeconds * 1000;
    let c = this.counters.get(bucket);
    if (!c || c.endsAt <= nowMs) {
      c = { endsAt: (Math.floor(nowMs / windowMs) + 1) * windowMs, count: 0 };
      this.counters.set(bucket, c);
    }
    c.count += cost;
    return decide(c.count, limit, windowSeconds, nowMs);
  }

  async peek(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const nowMs = this.clock.now().getTime();
    const c = this.counters.get(bucket);
    return decidePeek(c && c.endsAt > nowMs ? c.count : 0, limit, windowSeconds, nowMs);
  }

  private sweep(): void {
    const nowMs = this.clock.now().getTime();
    for (const [k, c] of this.counters) if (c.endsAt <= nowMs) this.counters.delete(k);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/**
 * Counters in Redis, shared by every process. While Redis cannot answer (down, or silent past the
 * command timeout) limits degrade to per-process counters: each process allows up to the limit on its
 * own, so the service keeps serving with limits still enforced. Meanwhile no request waits on Redis:
 * one background PING a second asks whether it is back, and the shared counters resume when it is.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly local: MemoryRateLimiter;
  private degraded = false;
  private probing = false;
  private lastProbeAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.local = new MemoryRateLimiter(clock);
  }

  async hit(bucket: string, limit: number, windowSeconds: number, cost = 1): Promise<RateLimitDecision> {
    // A disconnected client refuses at once (no offline queue); a silent server would cost every
    // request the command timeout, so after one failure nobody asks Redis but the probe.
    if (this.degraded || this.redis.status !== 'ready') {
      this.degrade(null);
      return this.local.hit(bucket, limit, windowSeconds, cost);
    }
    const nowMs = this.clock.now().getTime();
    const key = this.keyOf(bucket, windowSeconds, nowMs);
    try {
      const res = await this.redis
        .multi()
        .incrby(key, cost)
        .pexpire(key, windowSeconds * 1000 + 1000)
        .exec();
      const [err, count] = res?.[0] ?? [new Error('no reply to INCRBY'), null];
      if (err) throw err;
      return decide(Number(count), limit, windowSeconds, nowMs);
    } catch (err) {
      this.degrade(err as Error);
      return this.local.hit(bucket, limit, windowSeconds, cost);
    }
  }

  async peek(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    if (this.degraded || this.redis.status !== 'ready') {
      this.degrade(null);
      return this.local.peek(bucket, limit, windowSeconds);
    }
    const nowMs = this.clock.now().getTime();
    try {
      const count = await this.redis.get(this.keyOf(bucket, windowSeconds, nowMs));
      return decidePeek(Number(count ?? 0), limit, windowSeconds, nowMs);
    } catch (err) {
      this.degrade(err as Error);
      return this.local.peek(bucket, limit, windowSeconds);
    }
  }

  /** One counter per (bucket, window length, window), under the deployment's prefix. */
  private keyOf(bucket: string, windowSeconds: number, nowMs: number): string {
    return `${this.prefix}rl:${bucket}:${windowSeconds}:${Math.floor(nowMs / (windowSeconds * 1000))}`;
  }

  /** Counts locally from now on (logged once per outage) and starts a probe when one is due. */
  private degrade(err: Error | null): void {
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn(
        { err: err?.message ?? `redis ${this.redis.status}` },
        'rate limiter: redis unavailable, counting per process until it is back',
      );
    }
    const now = Date.now();
    if (this.probing || this.redis.status !== 'ready' || now - this.lastProbeAt < PROBE_EVERY_MS) return;
    this.probing = true;
    this.lastProbeAt = now;
    this.redis.ping().then(
      () => {
        this.probing = false;
        this.degraded = false;
        this.logger.info('rate limiter: redis is back, limits are shared again');
      },
      () => {
        this.probing = false;
      },
    );
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}

/** How often a degraded limiter asks Redis whether it is back. */
const PROBE_EVERY_MS = 1_000;
