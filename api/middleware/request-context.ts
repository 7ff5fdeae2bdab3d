import type { NextFunction, Request, Response } from 'express';
import { hrtime } from 'node:process';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { Errors } from '../../lib/errors.ts';
import { API_VERSIONS, isCalendarDate, LATEST_API_VERSION, resolveApiVersion } from '../versions.ts';

// A client's X-Request-Id is kept when it is short and plain; anything else is replaced.
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * First middleware on every request: request id (echoed, and bound to every log line), the default
 * API version, and the access log + metrics written when the response finishes.
 */
export function requestContext(logger: Logger, metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.startedAt = hrtime.bigint();
    const offered = req.get('x-request-id');
    req.id = offered && SANE_REQUEST_ID.test(offered) ? offered : newId('request');
    req.log = logger.child({ request_id: req.id });
    res.setHeader('X-Request-Id', req.id);
    req.apiVersion = LATEST_API_VERSION;
    res.setHeader('Service-Api-Version', LATEST_API_VERSION);

    res.on('finish', () => {
      const seconds = Number(hrtime.bigint() - req.startedAt) / 1e9;
      const route = req.route?.path ? String(req.route.path) : 'unmatched';
      const status = String(res.statusCode);
      metrics.httpRequests.inc({ method: req.method, route, status });
      metrics.httpDuration.observe({ method: req.method, route, status }, seconds);
      // Built only when it is written: req.path parses the URL again (a percent or so of a scan's main thread).
      if (req.log.isLevelEnabled('info')) {
        req.log.info(
          {
            method: req.method,
            path: loggablePath(req.path),
            route,
            status: res.statusCode,
            duration_ms: Math.round(seconds * 1e5) / 100,
            actor_id: req.principal?.actor_id,
          },
          'request completed',
        );
      }
    });

    next();
  };
}

/**
 * `Service-Api-Version`: absent → latest; a supported or later date → the newest revision on or
 * before it (echoed); malformed → 400 `api_version.invalid`; before the first → 400
 * `api_version.unsupported`. Runs after rate limiting so even these 400s carry RateLimit-* headers.
 */
export function apiVersion() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const pinned = req.get('service-api-version');
    if (pinned === undefined) return next();
    if (!isCalendarDate(pinned)) return next(Errors.apiVersionInvalid(pinned));
    const resolved = resolveApiVersion(pinned);
    if (!resolved) return next(Errors.apiVersionUnsupported(pinned, API_VERSIONS[0]));
    req.apiVersion = resolved;
    res.setHeader('Service-Api-Version', resolved);
    next();
  };
}

/** An invite accept path carries the one-time token itself: the log names the route, never the token. */
const INVITE_ACCEPT_PATH = /^\/v1\/invites\/[^/]*:accept$/;

/** The request path as the access log may keep it. */
export function loggablePath(path: string): string {
  return INVITE_ACCEPT_PATH.test(path) ? '/v1/invites/{token}:accept' : path;
}
