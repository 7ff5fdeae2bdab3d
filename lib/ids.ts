import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';

/** Crockford base32 body of every identifier: 26 characters, as the spec gives. */
export const ULID_BODY = '[0-9A-HJKMNP-TV-Z]{26}';

/** Identifier prefixes, one per resource. */
export const ID_PREFIX = {
  org: 'org',
  apiKey: 'ak',
  audit: 'aud',
  invite: 'inv',
  user: 'usr',
  policy: 'pol',
  /** Policy rules without a client-chosen id. */
  policyRule: 'rul',
  policyRevision: 'rev',
  webhook: 'wh',
  webhookDelivery: 'whd',
  /** Webhook events (the envelope id, Service-Event-Id). */
  event: 'evt',
  labeledEvent: 'lev',
  redteamRun: 'rtr',
  redteamFinding: 'rtf',
  redactionPolicy: 'rdp',
  scan: 'scan',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// The ulid package draws one crypto call per random character (16 per id): measured at 6% of the
// scan path's main-thread time. One pooled buffer, refilled 4 KiB at a time, costs almost nothing.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** 16 random Crockford characters (80 bits). */
function randomPart(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = '';
  for (let i = 0; i < 16; i++) out += CROCKFORD[pool[poolAt + i]! & 31];
  poolAt += 16;
  return out;
}

/** The random part plus one, in base 32 (the monotonic rule for ids minted in the same millisecond). */
function increment(random: string): string {
  const chars = random.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const v = CROCKFORD.indexOf(chars[i]!);
    if (v < 31) {
      chars[i] = CROCKFORD[v + 1]!;
      return chars.join('');
    }
    chars[i] = '0';
  }
  // 2^80 ids in one millisecond: unreachable; start afresh rather than wrap.
  return randomPart();
}

let lastTime = -1;
let lastRandom = '';

/** A monotonic ULID: strictly increasing within this process even when the clock repeats or steps back. */
function nextUlid(now: number): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
    return encodeTime(lastTime, 10) + lastRandom;
  }
  lastTime = now;
  lastRandom = randomPart();
  return encodeTime(now, 10) + lastRandom;
}

/** A new time-ordered identifier: `<prefix>_<ULID>`. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${nextUlid(now)}`;
}

const lastTimed = new Map<IdKind, { at: number; random: string }>();

/**
 * An identifier whose ULID time is exactly `at` (not bumped forward by the monotonic factory), for
 * resources whose time windows are queried as id ranges (scans, audit events). Ids of one kind
 * minted one after another for the same millisecond increase (the monotonic rule, so two audit
 * events of one change keep their order); otherwise the random part orders them.
 */
export function newTimedId(kind: IdKind, at: number): string {
  const last = lastTimed.get(kind);
  const random = last?.at === at ? increment(last.random) : randomPart();
  lastTimed.set(kind, { at, random });
  return `${ID_PREFIX[kind]}_${encodeTime(at, 10)}${random}`;
}

/**
 * The smallest id of `kind` minted at or after `t` (a ULID starts with its time): turns a time
 * window into an id range for resources whose ids carry their creation time (scans, audit events).
 */
export function idFloor(kind: IdKind, t: Date): string {
  return `${ID_PREFIX[kind]}_${encodeTime(Math.max(0, t.getTime()), 10)}0000000000000000`;
}

const shapes = new Map<IdKind, RegExp>();
const BARE_ULID = new RegExp(`^${ULID_BODY}$`);

/** Whether `value` has the exact shape of an identifier of `kind`. */
export function isId(kind: IdKind, value: string): boolean {
  let re = shapes.get(kind);
  if (!re) {
    re = new RegExp(`^${ID_PREFIX[kind]}_${ULID_BODY}$`);
    shapes.set(kind, re);
  }
  return re.test(value);
}

/**
 * Normalises a path parameter whose prefix is optional (the spec allows `scan_` to be omitted):
 * returns the full id, or null when the shape is wrong.
 */
export function parseIdParam(kind: IdKind, value: string, prefixOptional = false): string | null {
  if (isId(kind, value)) return value;
  if (prefixOptional && BARE_ULID.test(value)) return `${ID_PREFIX[kind]}_${value}`;
  return null;
}
