import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../../config.ts';
import { Errors } from '../../lib/errors.ts';
import type { RateLimiter } from '../../services/rate-limiter.ts';

/** A budget requests draw from: its counter's name and how many requests it allows per window. */
export interface RateBudget {
  bucket: string;
  limit: number;
}

/**
 * The budget a request spends: the one its own signed credential named (`req.budget`, set before
 * identification for a signed upload URL: api/route.ts `RouteSpec.signed`), else its API key's or
 * session's, else — with no valid credential — its client address's.
 */
function budgetOf(req: Request, config: Readonly<Config>): RateBudget {
  if (req.budget) return req.budget;
  if (req.principal) return { bucket: `key:${req.principal.actor_id}`, limit: config.RATE_LIMIT_REQUESTS };
  if (req.session) return { bucket: `sub:${req.session.subject}`, limit: config.RATE_LIMIT_REQUESTS };
  return { bucket: `ip:${req.ip ?? 'unknown'}`, limit: config.RATE_LIMIT_UNAUTHENTICATED_REQUESTS };
}

/**
 * Per-API-key limits (per client address for requests without a valid key), with the header names
 * of draft-ietf-httpapi-ratelimit-headers-06: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset
 * (delta seconds) and RateLimit-Policy (`<limit>;w=<window seconds>`), on every response.
 */
export function rateLimit(limiter: RateLimiter, config: Readonly<Config>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { bucket, limit } = budgetOf(req, config);
    const d = await limiter.hit(bucket, limit, config.RATE_LIMIT_WINDOW_SECONDS);
    res.setHeader('RateLimit-Limit', String(d.limit));
    res.setHeader('RateLimit-Remaining', String(d.remaining));
    res.setHeader('RateLimit-Reset', String(d.resetSeconds));
    res.setHeader('RateLimit-Policy', `${d.limit};w=${d.windowSeconds}`);
    if (d.allowed) return next();
    // A refused request's body is never read: closing beats reading up to an upload's 100 MiB to
    // keep the connection.
    if (!req.complete) res.setHeader('Connection', 'close');
    next(Errors.rateLimited(d.resetSeconds));
  };
}
