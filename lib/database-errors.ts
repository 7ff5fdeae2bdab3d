/**
 * Telling a database outage from a failed statement, from the error alone (SQLSTATE, errno or the
 * driver's message): pure, so the HTTP error renderer and the scan writer share it without SQL.
 */

// SQLSTATE classes and codes that mean "the server is not there right now", not "this query is wrong":
// 08 connection exception, 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
// 53300 too_many_connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
// pg and pg-pool raise these as plain Errors without a code.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/**
 * Whether `err` says the database cannot be reached (refused, restarting, shutting down, the
 * connection dropped or timed out) rather than that a statement failed. Such a request may succeed
 * when retried a moment later: the API answers 503 `service.database_unavailable` with Retry-After.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (
      typeof code === 'string' &&
      (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))
    )
      return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
    // AggregateError (a dual-stack connect refused on ::1 and 127.0.0.1) carries its causes in `errors`.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some((x) => isDatabaseUnavailable(x))) return true;
  }
  return false;
}
