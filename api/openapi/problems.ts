/**
 * The problems an operation answers, by status: those every route of its shape answers — read off
 * the route's chain the way `Routes.mount` builds it (api/route.ts) — plus the ones the route lists
 * itself (`RouteSpec.errors`). The document states them as an enum of codes per status, and the test
 * harness's contract check fails a response whose code is not in it.
 */
import { entries } from '../../lib/error-catalogue.ts';
import type { DeclaredRoute, ProblemCode } from '../route.ts';

/** Status → codes, each sorted; statuses ascending. */
export type ProblemsByStatus = Map<number, string[]>;

function shapeProblems(r: DeclaredRoute): ProblemCode[] {
  // Any request: an unreadable body or path (request.malformed), an unexpected fault.
  const out: ProblemCode[] = [entries.badRequest, entries.internal];
  if (!r.unmetered) {
    // Past the early router: versioning, rate limiting, and the database every later step reads.
    out.push(
      entries.apiVersionInvalid,
      entries.apiVersionUnsupported,
      entries.rateLimited,
      entries.databaseUnavailable,
    );
  }
  if (r.access !== 'public') {
    out.push(entries.unauthenticated, entries.apiKeyExpired, entries.apiKeyRevoked, entries.ssoIssuerUnreachable);
  }
  if (r.access !== 'public' && r.access !== 'identified' && r.access !== 'authenticated') {
    out.push(entries.insufficientScope);
  }
  if (r.params || r.query || r.body) out.push(entries.validationFailed);
  const hasBody = r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH';
  if (hasBody && !r.rawBody) out.push(entries.invalidJson, entries.bodyTooLarge, entries.unsupportedMediaType);
  // What JSON.parse lets through but the body would not carry as sent (api/json-text.ts).
  if (r.body) out.push(entries.duplicateKey, entries.forbiddenKey, entries.numberOutOfRange);
  // The idempotency middleware is in every POST and PUT chain; on a public route (an evidence upload)
  // it acts when a bearer is sent anyway.
  if (r.method === 'POST' || r.method === 'PUT')
    out.push(entries.idempotencyKeyInvalid, entries.idempotencyKeyReused, entries.idempotencyInProgress);
  return out;
}

/** Every problem `r` answers, grouped by status. */
export function problemsOf(r: DeclaredRoute): ProblemsByStatus {
  const byStatus = new Map<number, Set<string>>();
  for (const p of [...shapeProblems(r), ...r.errors]) {
    let codes = byStatus.get(p.status);
    if (!codes) byStatus.set(p.status, (codes = new Set()));
    codes.add(p.code);
  }
  return new Map(
    [...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, codes]) => [status, [...codes].sort()]),
  );
}

/** `<list>.invalid_cursor`: a list route's 400 for a cursor it did not issue (api/pagination.ts). */
export function cursorProblem(list: string): ProblemCode {
  return { status: entries.invalidCursor.status, code: entries.invalidCursor.code.replace('<resource>', list) };
}
