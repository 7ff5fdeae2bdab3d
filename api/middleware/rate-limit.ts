import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../../config.ts';
import { Errors } from '../../lib/errors.ts';
import type { RateLimiter } from '../../services/rate-limiter.ts';

/**
 * Per-API-key limits (per client address for requests without a valid key), with the header names
 * of draft-ietf-httpapi-ratelimit-headers-06: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset
 * (delta seconds) and RateLimit-Policy (`<limit>;w=<window seconds>`), on every response.
 */
export function rateLimit(limiter: RateLimiter, config: Readonly<Config>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const keyed = req.principal !== undefined || req.session !== undefined;
    const bucket = req.principal
      ? `key:${req.principal.actor_id}`
      : req.session
        ? `sub:${req.session.subject}`
        : `ip:${req.ip ?? 'unknown'}`;
    const limit = keyed ? config.RATE_LIMIT_REQUESTS : config.RATE_LIMIT_UNAUTHENTICATED_REQUESTS;
    const d = await limiter.hit(bucket, limit, config.RATE_LIMIT_WINDOW_SECONDS);
    res.setHeader('RateLimit-Limit', String(d.limit));
    res.setHeader('RateLimit-Remaining', String(d.remaining));
    res.setHeader('RateLimit-Reset', String(d.resetSeconds));
    res.setHeader('RateLimit-Policy', `${d.limit};w=${d.windowSeconds}`);
    if (!d.allowed) return next(Errors.rateLimited(d.resetSeconds));
    next();
  };
}
