/**
 * Idempotency records: claim a key for a request, store its response sealed (a create or rotate
 * response may hold a one-time secret), open a stored one for a replay, or release the claim. Which
 * requests take part and what a replay sends is HTTP: api/middleware/idempotency.ts.
 */
import type { Clock } from '../lib/clock.ts';
import { seal, unseal } from '../lib/crypto.ts';
import type { Db } from '../store/db.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type ClaimResult,
} from '../store/idempotency.ts';

export type { ClaimResult };

// A claim whose process died is taken over after this long (only by the same request).
const LOCK_MS = 60_000;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** How long a record is kept (IDEMPOTENCY_TTL_HOURS). */
  ttlHours: number;
  /** The AES-256-GCM key stored responses are sealed with. */
  sealKey: Buffer;
}

/** One key of one organization, as used by one principal. */
export interface IdempotencyKeyRef {
  orgId: string;
  key: string;
  principalId: string;
}

/**
 * The AES-GCM associated data of a stored replay: it opens only for this organization, principal and
 * key (the key last: it is the one free-form part).
 */
export function replayBinding(orgId: string, principalId: string, key: string): string {
  return `idempotency/${orgId}/${principalId}/${key}`;
}

/** Claims the key for the request with this fingerprint, or says why not (store/idempotency.ts). */
export function claimKey(deps: IdempotencyDeps, ref: IdempotencyKeyRef, fingerprint: Buffer): Promise<ClaimResult> {
  const now = deps.clock.now();
  return claimIdempotencyKey(
    deps.db,
    ref.orgId,
    ref.key,
    ref.principalId,
    fingerprint,
    now,
    new Date(now.getTime() + LOCK_MS),
    new Date(now.getTime() + deps.ttlHours * 3_600_000),
  );
}

/**
 * The body of a stored response, opened for a replay.
 * @throws Error when it was not sealed for this organization, principal and key.
 */
export function openReplay(deps: IdempotencyDeps, ref: IdempotencyKeyRef, sealed: Buffer): Buffer {
  return unseal(deps.sealKey, sealed, replayBinding(ref.orgId, ref.principalId, ref.key));
}

/** Stores the response of a claimed request, sealed, so its later reuses replay it. */
export function recordResponse(
  deps: IdempotencyDeps,
  ref: IdempotencyKeyRef,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): Promise<void> {
  const sealed = seal(deps.sealKey, body, replayBinding(ref.orgId, ref.principalId, ref.key));
  return completeIdempotencyKey(deps.db, ref.orgId, ref.key, ref.principalId, { status, headers, body: sealed });
}

/** Drops the claim (the request failed with a server error), so a retry runs afresh. */
export function releaseKey(deps: IdempotencyDeps, ref: IdempotencyKeyRef): Promise<void> {
  return releaseIdempotencyKey(deps.db, ref.orgId, ref.key, ref.principalId);
}
