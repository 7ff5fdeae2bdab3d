/**
 * When the client tries a request again (docs/client.md, Retries: "our documented retry policy"):
 *
 * - a 429 or a 503: the service (or a balancer with no node to send it to) did not do the work; any
 *   request, after `Retry-After` when given;
 * - a 409 `idempotency.request_in_progress`: the same key is still running (or its node died and its
 *   claim is about to lapse); after its `Retry-After`, with the same key;
 * - a 502 or 504 that is not one of our problem documents (a load balancer's own page: the node it
 *   sent the request to died or timed out) and a network error (connection refused or reset), only
 *   when repeating the request is safe: GET, DELETE, or one carrying an Idempotency-Key.
 *
 * Never after any other status: our own 502/504 problems (an identity provider failed, a scan
 * deadline passed) and every other 4xx and 5xx are answers, not lost requests.
 */

/** The retry policy of a client (`createClient({ retries })`). */
export interface RetryOptions {
  /** Retries after the first attempt; default 3 (so at most 4 attempts). 0 turns retrying off. */
  maxRetries?: number | undefined;
  /** First backoff ceiling in ms, doubled per retry (full jitter: a random wait up to it); default 500. */
  baseDelayMs?: number | undefined;
  /** Longest wait before a retry, in ms; default 30 000. A `Retry-After` longer than this is not waited for: the error is thrown. */
  maxDelayMs?: number | undefined;
}

/** The policy with every default filled in. */
export type RetryPolicy = { [K in keyof RetryOptions]-?: NonNullable<RetryOptions[K]> };

/** Statuses after which any request is tried again: the work was not done. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Statuses a load balancer answers when the node it chose went away: retried for repeatable requests when not our problem document. */
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** The problem code of a 409 that is retried: the same Idempotency-Key is still running. */
export const IN_PROGRESS_CODE = 'idempotency.request_in_progress';

/** `options` completed with the defaults; `false` turns retrying off. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  const given = options || {};
  const policy = {
    maxRetries: options === false ? 0 : (given.maxRetries ?? 3),
    baseDelayMs: given.baseDelayMs ?? 500,
    maxDelayMs: given.maxDelayMs ?? 30_000,
  };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`retries.${name} must be a non-negative number`);
  }
  return policy;
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before retry number `retry` (0-based) when the server named none: exponential, full jitter, capped. */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
