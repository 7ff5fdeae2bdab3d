import type { NextFunction, Request, Response } from 'express';
import { createHash } from 'node:crypto';
import type { Clock } from '../../lib/clock.ts';
import { Errors } from '../../lib/errors.ts';
import {
  CLAIM_LEASE_MS,
  ClaimLeases,
  claimKey,
  openReplay,
  recordResponse,
  releaseKey,
  type IdempotencyDeps,
  type IdempotencyKeyRef,
} from '../../services/idempotency.ts';
import type { Db } from '../../store/db.ts';

/**
 * Set on `res.locals.idempotency` for a claimed key: how a handler stores its replay itself (a stream,
 * or an answer whose replay differs from it) or gives it up. What is sent afterwards is not stored.
 */
export interface IdempotencyHandle {
  /** `headers` are replayed beside the JSON content type (e.g. `location`). */
  record(status: number, json: unknown, headers?: Record<string, string>): Promise<void>;
  release(): Promise<void>;
}

/**
 * `Retry-After` of a 409 `idempotency.request_in_progress`: until the running claim's lease lapses (1–lease
 * seconds). A live owner renews it and the retry may meet it again; a dead owner's claim is free by then.
 */
function retryAfterSeconds(claim: { lockedUntil: Date | null }, clock: Clock, leaseMs: number): number {
  if (!claim.lockedUntil) return 1;
  const left = Math.ceil((claim.lockedUntil.getTime() - clock.now().getTime()) / 1000);
  return Math.min(Math.max(left, 1), Math.ceil(leaseMs / 1000));
}

export const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['content-type', 'location'];

/**
 * `Idempotency-Key` on POST: the first request with a key runs and its response (any status below
 * 500) is stored — sealed with AES-256-GCM, since it may hold a one-time secret — for
 * IDEMPOTENCY_TTL_HOURS per organization before it is sent, bound to the principal that sent it. A
 * reuse by the same principal with the same method, path and body replays it (`Idempotent-Replayed:
 * true`); a reuse by another principal (or of a record bound to none, from before binding), or with
 * anything else, is 409 `idempotency.key_reused`; a reuse while the first is still running is 409
 * `idempotency.request_in_progress` (`Retry-After`: until the first's claim lapses). The process running
 * a claimed request renews the claim's lease (CLAIM_LEASE_MS) while it runs: when the process dies
 * (kill -9, a lost node) the same request retried on another node takes the claim over within the
 * lease, not the key's retention. A 5xx, or a 499 (the client went away before its answer), releases
 * the key so a retry runs afresh.
 */
export function idempotency(db: Db, clock: Clock, ttlHours: number, sealKey: Buffer, leaseMs = CLAIM_LEASE_MS) {
  const deps: IdempotencyDeps = { db, clock, ttlHours, sealKey, leaseMs };
  const leases = new ClaimLeases(db, clock, leaseMs);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('idempotency-key');
    if (key === undefined || !req.principal) return next();
    if (!KEY_SHAPE.test(key)) return next(Errors.idempotencyKeyInvalid());
    const orgId = req.principal.org_id;
    // The replay may carry the one-time secret the first request minted: only its sender gets it back.
    const principalId = req.principal.actor_id;
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.originalUrl}\n`)
      .update(req.rawBody ?? Buffer.alloc(0))
      .digest();
    const ref: IdempotencyKeyRef = { orgId, key, principalId };
    const claim = await claimKey(deps, ref, fingerprint);
    if (claim.kind === 'foreign') return next(Errors.idempotencyKeyReused(claim.legacy ? 'unbound' : 'credential'));
    if (claim.kind === 'mismatch') return next(Errors.idempotencyKeyReused('request'));
    if (claim.kind === 'in_progress')
      return next(Errors.idempotencyInProgress(retryAfterSeconds(claim, clock, leaseMs)));
    if (claim.kind === 'replay') {
      for (const [h, v] of Object.entries(claim.response.headers)) res.setHeader(h, v);
      res.setHeader('Idempotent-Replayed', 'true');
      // Every record a principal owns was sealed (records stored in clear predate binding: never replayed).
      res.status(claim.response.status).end(openReplay(deps, ref, claim.response.body));
      return;
    }
    // Renewed while this request runs, so only a claim whose process died lapses; no longer once the
    // claim is stored or released, or the response has closed (a handler still running after that is
    // not waited for: its claim lapses like a dead process's).
    const unhold = leases.hold({ orgId, key, principalId, claimedAt: claim.claimedAt });
    res.once('close', unhold);
    // One place stores or releases this claim, for send() and for streaming handlers alike.
    const store = (status: number, headers: Record<string, string>, bytes: Buffer) =>
      recordResponse(deps, ref, status, headers, bytes).finally(unhold);
    const release = () => releaseKey(deps, ref).finally(unhold);

    // Claimed: store the response before it leaves, so an acknowledged request is always replayable.
    const send = res.send.bind(res);
    let settled = false;
    res.send = (body?: unknown) => {
      if (settled) return send(body);
      settled = true;
      // A 5xx, or a request whose client went away (499, never delivered): a retry runs afresh.
      if (res.statusCode >= 500 || res.statusCode === 499) {
        release().catch((err: Error) => req.log.error({ err: err.message }, 'idempotency release failed'));
        return send(body);
      }
      const bytes =
        body === undefined
          ? Buffer.alloc(0)
          : Buffer.isBuffer(body)
            ? body
            : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const headers: Record<string, string> = {};
      for (const h of REPLAYED_HEADERS) {
        const v = res.getHeader(h);
        if (v !== undefined) headers[h] = String(v);
      }
      if (!headers['content-type'] && typeof body === 'object' && body !== null && !Buffer.isBuffer(body))
        headers['content-type'] = 'application/json; charset=utf-8';
      store(res.statusCode, headers, bytes)
        .catch((err: Error) => req.log.error({ err: err.message }, 'idempotency record failed'))
        .finally(() => send(body));
      return res;
    };
    // Streaming responses never call send(), and some answers are not their own replay (a scan's):
    // those record the replay themselves.
    res.locals.idempotency = {
      record: async (status: number, json: unknown, headers: Record<string, string> = {}) => {
        settled = true;
        const replayed = { ...headers, 'content-type': 'application/json; charset=utf-8' };
        await store(status, replayed, Buffer.from(JSON.stringify(json)));
      },
      release: async () => {
        settled = true;
        await release();
      },
    } satisfies IdempotencyHandle;
    // A handler that throws reaches the problem handler, whose send() above stores or releases.
    next();
  };
}
