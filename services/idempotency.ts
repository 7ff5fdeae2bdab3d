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
  renewIdempotencyClaims,
  type ClaimResult,
  type HeldClaim,
} from '../store/idempotency.ts';

export type { ClaimResult };

/**
 * A claim's lease: it lapses this long after its claim or last renewal, and then the same request (same
 * principal, same body) may take it over. The owning process renews the leases of its running claims
 * (`ClaimLeases`), so only a claim whose process died (kill -9, a lost host) or stalled lapses: a retry
 * on another node waits at most this long, not the key's retention.
 */
export const CLAIM_LEASE_MS = 5_000;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** How long a record is kept (IDEMPOTENCY_TTL_HOURS). */
  ttlHours: number;
  /** The AES-256-GCM key stored responses are sealed with. */
  sealKey: Buffer;
  /** The lease of a claim (default CLAIM_LEASE_MS; tests shorten it). */
  leaseMs?: number;
}

/**
 * The heartbeat of one process's running claims. Every quarter lease it renews, in one statement, the
 * claims whose lease is past its half (a request that takes a few milliseconds is never renewed); the
 * timer runs only while the process holds a claim. A renewal that fails (the database is away) is
 * tried again at the next beat; a claim not renewed in time lapses, as if its process had died.
 */
export class ClaimLeases {
  private readonly held = new Map<string, HeldClaim & { lockedUntil: number }>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private renewing = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly leaseMs: number = CLAIM_LEASE_MS,
  ) {}

  /** Keeps `claim` (claimed at `claim.claimedAt`) alive until the returned function is called. */
  hold(claim: HeldClaim): () => void {
    const id = `${claim.orgId}\n${claim.key}`;
    this.held.set(id, { ...claim, lockedUntil: claim.claimedAt.getTime() + this.leaseMs });
    this.timer ??= setInterval(() => void this.beat(), Math.max(10, Math.floor(this.leaseMs / 4)));
    this.timer.unref();
    return () => {
      const current = this.held.get(id);
      if (current && current.claimedAt === claim.claimedAt) this.held.delete(id);
      if (this.held.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** How many claims this process holds now. */
  get size(): number {
    return this.held.size;
  }

  private async beat(): Promise<void> {
    if (this.renewing) return;
    const now = this.clock.now().getTime();
    const due = [...this.held.values()].filter((c) => c.lockedUntil - now <= this.leaseMs / 2);
    if (due.length === 0) return;
    this.renewing = true;
    const until = now + this.leaseMs;
    try {
      await renewIdempotencyClaims(this.db, due, new Date(until));
      for (const c of due) c.lockedUntil = until;
    } catch {
      // The next beat tries again; past the lease the claim lapses like a dead process's.
    } finally {
      this.renewing = false;
    }
  }
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

/**
 * Claims the key for the request with this fingerprint, or says why not (store/idempotency.ts).
 * `claimedAt` identifies the claim for its renewals (`ClaimLeases.hold`).
 */
export async function claimKey(
  deps: IdempotencyDeps,
  ref: IdempotencyKeyRef,
  fingerprint: Buffer,
): Promise<ClaimResult & { claimedAt: Date }> {
  const now = deps.clock.now();
  const result = await claimIdempotencyKey(
    deps.db,
    ref.orgId,
    ref.key,
    ref.principalId,
    fingerprint,
    now,
    new Date(now.getTime() + (deps.leaseMs ?? CLAIM_LEASE_MS)),
    new Date(now.getTime() + deps.ttlHours * 3_600_000),
  );
  return { ...result, claimedAt: now };
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
