/**
 * The error the client throws when the API answers with a problem (`application/problem+json`, RFC
 * 9457) — or with any other status that is not a success.
 */
import type { components } from './api-types.ts';

/** A problem document as the API sends it (docs/errors.md): `code` is the stable thing to branch on. */
export type Problem = components['schemas']['Problem'];

/** One item of a `request.validation_failed` problem's `errors`. */
export interface ValidationIssue {
  path: string;
  message: string;
  [key: string]: unknown;
}

/** `code` of an error answer that carried no problem document (a proxy's HTML 502, say). */
export const UNEXPECTED_RESPONSE = 'client.unexpected_response';

/** An error answer of the API. */
export class ContentFirewallError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The problem's stable code (`api_keys.not_found`), or `client.unexpected_response` when there was none. */
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  /** The request's id (`X-Request-Id`): quote it when asking the operator about a failure. */
  readonly requestId: string | undefined;
  /** The whole problem document (undefined when the answer was not one). */
  readonly problem: Problem | undefined;
  /** What was wrong with the request, for `request.validation_failed` (else empty). */
  readonly errors: readonly ValidationIssue[];
  /** `Retry-After` in seconds, when the answer carried one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    problem?: Problem;
    requestId?: string;
    retryAfterSeconds?: number;
    statusText?: string;
  }) {
    const { status, problem } = init;
    const title = problem?.title ?? (init.statusText || `HTTP ${status}`);
    const detail = typeof problem?.detail === 'string' ? problem.detail : undefined;
    super(detail ? `${title}: ${detail}` : title);
    this.name = 'ContentFirewallError';
    this.status = status;
    this.code = typeof problem?.code === 'string' ? problem.code : UNEXPECTED_RESPONSE;
    this.title = title;
    this.detail = detail;
    this.requestId = init.requestId ?? (typeof problem?.request_id === 'string' ? problem.request_id : undefined);
    this.problem = problem;
    this.errors = Array.isArray(problem?.errors) ? (problem.errors as ValidationIssue[]) : [];
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** Whether `value` looks like a problem document (an object with a numeric `status` and a `title`). */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.status === 'number' && typeof v.title === 'string';
}
