/**
 * What a scan costs, counted against its credential: characters scanned per window
 * (RATE_LIMIT_SCAN_CHARS per RATE_LIMIT_WINDOW_SECONDS), beside the per-request limit. A request count
 * treats a 500,000-character document like a greeting; this budget prices the model time a key can
 * ask for. Counted in the rate limiter's store (Redis when configured: one budget across processes).
 */
import { Errors } from '../lib/errors.ts';
import type { RateLimiter } from './rate-limiter.ts';

export class ScanBudget {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  /**
   * Takes `chars` from the actor's budget of this window; a scan that does not fit is refused and its
   * characters given back (a refusal costs nothing).
   * @throws ProblemError 429 `rate_limit.characters_exceeded`, with Retry-After
   */
  async take(actorId: string, chars: number): Promise<void> {
    if (chars <= 0) return;
    const bucket = `chars:${actorId}`;
    const d = await this.limiter.hit(bucket, this.limit, this.windowSeconds, chars);
    if (d.allowed) return;
    await this.limiter.hit(bucket, this.limit, this.windowSeconds, -chars);
    throw Errors.scanCharactersExceeded(this.limit, this.windowSeconds, d.resetSeconds);
  }
}
