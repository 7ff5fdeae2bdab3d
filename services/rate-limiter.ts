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
  hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

function decide(count: number, limit: number, windowSeconds: number, nowMs: number): RateLimitDecision {
  const windowMs = windowSeconds * 1000;
  const resetSeconds = Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds, windowSeconds };
}

/** In-process counters: correct for one process. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, { endsAt: number; count: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly clock: Clock) {
    this.sweeper = setInterval(() => this.sweep(), 60_000).unref();
  }

  async hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const nowMs = this.clock.now().getTime();
    const windowMs = windowSeconds * 1000;
    let c = this.counters.get(bucket);
    if (!c || c.endsAt <= nowMs) {
      c = { endsAt: (Math.floor(nowMs / windowMs) + 1) * windowMs, count: 0 };
      this.counters.set(bucket, c);
    }
    c.count += 1;
    return decide(c.count, limit, windowSeconds, nowMs);
  }

  private sweep(): void {
    const nowMs = this.clock.now().getTime();
    for (const [k, c] of this.counters) if (c.endsAt <= nowMs) this.counters.delete(k);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/** Counters in Redis, shared by every process. Fails open (logs, allows) while Redis is unreachable. */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const nowMs = this.clock.now().getTime();
    const window = Math.floor(nowMs / (windowSeconds * 1000));
    const key = `${this.prefix}rl:${bucket}:${windowSeconds}:${window}`;
    try {
      const res = await this.redis.multi().incr(key).pexpire(key, windowSeconds * 1000 + 1000).exec();
      const count = Number(res?.[0]?.[1] ?? 0);
      return decide(count, limit, windowSeconds, nowMs);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'rate limiter: redis unavailable, allowing request');
      return decide(0, limit, windowSeconds, nowMs);
    }
  }

  async close(): Promise<void> {}
}
