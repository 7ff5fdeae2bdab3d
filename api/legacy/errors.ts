/**
 * The legacy API's errors (docs/legacy.md, docs/errors.md "Legacy analysis API"): the spec's body
 * `{error: {code, message, details: {parameter, suggestion}}}` with UPPER_SNAKE codes and only the
 * statuses the spec lists (200, 400, 401, 403, 404, 429, 500). v1 problems raised by shared middleware
 * (authentication, rate limiting, overload) are translated here, so no problem+json leaves this listener.
 */
import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../../lib/errors.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { toProblem } from '../middleware/problem.ts';

/** Every legacy code with its status: docs/errors.md lists the same (test/unit/legacy-errors.test.ts). */
export const LEGACY_CODES = {
  INVALID_PARAMETER: 400,
  CONTENT_TOO_LONG: 400,
  EMPTY_CONTENT: 400,
  INVALID_API_KEY: 401,
  ACCESS_DENIED: 403,
  ANALYSIS_NOT_FOUND: 404,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  ANALYSIS_TIMEOUT: 500,
  INTERNAL_ERROR: 500,
} as const;

export type LegacyCode = keyof typeof LEGACY_CODES;

/** A legacy error: its code fixes the status; `parameter` is "" when no one parameter is at fault. */
export class LegacyError extends Error {
  readonly status: number;

  constructor(
    readonly code: LegacyCode,
    message: string,
    readonly parameter = '',
    readonly suggestion = '',
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = LEGACY_CODES[code];
  }

  body() {
    return {
      error: {
        code: this.code,
        message: this.message,
        details: { parameter: this.parameter, suggestion: this.suggestion },
      },
    };
  }
}

const retryAfter = (seconds: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(seconds))) });

export const LegacyErrors = {
  invalidParameter: (parameter: string, message: string, suggestion: string) =>
    new LegacyError('INVALID_PARAMETER', message, parameter, suggestion),
  contentTooLong: (max: number, long: boolean) =>
    new LegacyError(
      'CONTENT_TOO_LONG',
      `The body is longer than ${max} characters.`,
      'body',
      long
        ? `Send at most ${max} characters; split longer content into several requests.`
        : 'Use long_prompt_injection=true for content longer than 5000 characters, or send at most 5000.',
    ),
  emptyContent: () =>
    new LegacyError('EMPTY_CONTENT', 'The body is empty.', 'body', 'Send the text to analyze as the request body.'),
  invalidApiKey: () =>
    new LegacyError(
      'INVALID_API_KEY',
      'The API key is missing, malformed, unknown, revoked or expired.',
      'Authorization',
      'Send a valid API key as "Authorization: Bearer <API_KEY>".',
      { 'WWW-Authenticate': 'Bearer' },
    ),
  accessDenied: () =>
    new LegacyError(
      'ACCESS_DENIED',
      'This API key may not run analyses: it lacks the scans:write scope.',
      'Authorization',
      'Use a key with the scans:write scope.',
    ),
  analysisNotFound: (id: string) =>
    new LegacyError(
      'ANALYSIS_NOT_FOUND',
      `No analysis ${id} in this organization.`,
      'analysis_id',
      'Create an analysis session with POST /v1/legacy-analyses and use its analysis_id.',
    ),
  notFound: () =>
    new LegacyError('NOT_FOUND', 'No such endpoint.', '', 'The legacy API serves POST /v1/analysis/{analysis_id}.'),
  rateLimited: (seconds: number) =>
    new LegacyError(
      'RATE_LIMITED',
      'Too many requests.',
      '',
      `Retry after ${Math.max(1, Math.ceil(seconds))} s.`,
      retryAfter(seconds),
    ),
  quotaExceeded: (limit: number, resetsAt: Date, now: Date) =>
    new LegacyError(
      'QUOTA_EXCEEDED',
      `The organization's monthly quota of ${limit} requests is used up.`,
      '',
      `The quota resets at ${resetsAt.toISOString()}; ask your operator for a higher quota.`,
      retryAfter((resetsAt.getTime() - now.getTime()) / 1000),
    ),
  analysisTimeout: () =>
    new LegacyError(
      'ANALYSIS_TIMEOUT',
      'The analysis did not finish in time; nothing was recorded.',
      '',
      'Retry the request.',
    ),
  internal: () =>
    new LegacyError(
      'INTERNAL_ERROR',
      'An unexpected error occurred.',
      '',
      'Retry later; contact support with the X-Request-Id header of this response.',
    ),
};

/** The `Retry-After` seconds of a problem (1 when it has none). */
function retrySeconds(p: ProblemError): number {
  return Number(p.headers['Retry-After'] ?? 1) || 1;
}

/**
 * What a v1 problem from shared code means here: authentication failures are INVALID_API_KEY, a
 * missing scope ACCESS_DENIED, the rate limiter and every "busy, retry" 503 (overloaded model pool,
 * database away, SSO issuer unreachable) RATE_LIMITED with Retry-After, a malformed query parameter
 * INVALID_PARAMETER naming it. Anything else is a fault: null.
 */
export function fromProblem(p: ProblemError): LegacyError | null {
  if (p.status === 401) return LegacyErrors.invalidApiKey();
  if (p.status === 403) return LegacyErrors.accessDenied();
  if (p.status === 429 || p.status === 503) return LegacyErrors.rateLimited(retrySeconds(p));
  if (p.code === 'scans.deadline_exceeded') return LegacyErrors.analysisTimeout();
  if (p.code === 'request.validation_failed') {
    const issue = (p.extra.errors as { path: string; message: string }[] | undefined)?.[0];
    const parameter = issue?.path.replace(/^query\./, '') ?? '';
    return LegacyErrors.invalidParameter(
      parameter,
      `${parameter || 'A query parameter'} ${issue?.message ?? 'is invalid'}.`,
      'Percent-encode query parameters as UTF-8.',
    );
  }
  if (p.status === 400 || p.status === 413 || p.status === 415)
    return LegacyErrors.invalidParameter('body', 'The request body could not be read.', 'Send UTF-8 text/plain.');
  return null;
}

/** Sends a legacy error. */
export function sendLegacyError(res: Response, e: LegacyError): void {
  for (const [h, v] of Object.entries(e.headers)) res.setHeader(h, v);
  res.status(e.status).json(e.body());
}

/** The listener's one error middleware: a fault is logged with the request id and answers a fixed 500. */
export function legacyErrorHandler(metrics: Metrics) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let e: LegacyError | null = err instanceof LegacyError ? err : null;
    if (!e) {
      const problem = toProblem(err, 0);
      e = problem && problem.code !== 'internal.error' ? fromProblem(problem) : null;
    }
    if (!e) {
      metrics.unhandledErrors.inc();
      req.log.error(
        { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
        'unhandled error (legacy API)',
      );
      e = LegacyErrors.internal();
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendLegacyError(res, e);
  };
}
