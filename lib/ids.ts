import { monotonicFactory, ulid } from 'ulid';

/** Crockford base32 body of every identifier: 26 characters, as the spec gives. */
export const ULID_BODY = '[0-9A-HJKMNP-TV-Z]{26}';

/** Identifier prefixes, one per resource. */
export const ID_PREFIX = {
  org: 'org',
  apiKey: 'ak',
  audit: 'aud',
  invite: 'inv',
  policy: 'pol',
  webhook: 'wh',
  webhookDelivery: 'whd',
  labeledEvent: 'lev',
  redteamRun: 'rtr',
  scan: 'scan',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const nextUlid = monotonicFactory();

/** A new time-ordered identifier: `<prefix>_<ULID>`. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${nextUlid(now)}`;
}

/**
 * An identifier whose ULID time is exactly `at` (not bumped forward by the monotonic factory), for
 * resources whose time windows are queried as id ranges (scans). Ids minted in the same
 * millisecond are ordered by their random part.
 */
export function newTimedId(kind: IdKind, at: number): string {
  return `${ID_PREFIX[kind]}_${ulid(at)}`;
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
