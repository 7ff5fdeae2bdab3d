/**
 * One fuzz case of a route: its path ids (existing, foreign-prefixed, unknown, junk), query string
 * (list filters, cursor, limit, unknown parameters), body, and headers (credentials, Content-Type,
 * Accept, Idempotency-Key, Service-Api-Version, X-Request-Id, another method).
 */
import fc from 'fast-check';
import { ID_PREFIX } from '../../../lib/ids.ts';
import { ID_RESOURCES, PARAM_RESOURCE, PARAM_TOKEN, RESOURCES, type RouteEntry } from '../routes.ts';
import { bodyArb, type Body } from './bodies.ts';
import { anyUnit, HOSTILE_PATH_SEGMENTS, ulidBody } from './values.ts';

/** A path id: `existing` is resolved when the case runs (a fresh resource for routes that use theirs up). */
export type PathId = { kind: 'existing' } | { kind: 'literal'; text: string };

const literal = (a: fc.Arbitrary<string>) => a.map((text): PathId => ({ kind: 'literal', text }));

/** A path secret (PARAM_TOKEN: an invite's accept token, 43 base64url characters): the fixture's, another, junk. */
function pathTokenArb(): fc.Arbitrary<PathId> {
  const b64url = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<PathId>({ kind: 'existing' }) },
    { weight: 2, arbitrary: literal(fc.string({ unit: b64url, minLength: 43, maxLength: 43 })) },
    { weight: 1, arbitrary: literal(fc.string({ unit: b64url, minLength: 0, maxLength: 60 })) },
    { weight: 1, arbitrary: literal(fc.constantFrom(...ID_RESOURCES).map((x) => `@${x}`)) },
    { weight: 2, arbitrary: literal(fc.string({ maxLength: 50 }).map(encodeURIComponent)) },
    {
      weight: 2,
      arbitrary: literal(
        fc.constantFrom('%00', '%ED%A0%80', `${'A'.repeat(42)}%00`, '%', '%zz', '%2F', '..', '%FF', 'a'.repeat(3000)),
      ),
    },
  );
}

function pathIdArb(param: string): fc.Arbitrary<PathId> {
  if (PARAM_TOKEN[param]) return pathTokenArb();
  const kind = RESOURCES[PARAM_RESOURCE[param]!].idKind;
  // Per-organization numbers (legacy analysis sessions): any integer of the range is valid-shaped.
  const prefix = kind === 'perOrgNumber' ? '1' : ID_PREFIX[kind];
  const validShaped =
    kind === 'perOrgNumber'
      ? fc.integer({ min: 1, max: 2_147_483_647 }).map(String)
      : ulidBody.map((b) => `${prefix}_${b}`);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<PathId>({ kind: 'existing' }) },
    { weight: 2, arbitrary: literal(validShaped) },
    {
      weight: 1,
      arbitrary: literal(fc.tuple(fc.constantFrom(...Object.values(ID_PREFIX)), ulidBody).map(([p, b]) => `${p}_${b}`)),
    },
    { weight: 1, arbitrary: literal(fc.constantFrom(...ID_RESOURCES).map((x) => `@${x}`)) },
    { weight: 2, arbitrary: literal(fc.string({ maxLength: 40 }).map(encodeURIComponent)) },
    {
      weight: 2,
      arbitrary: literal(
        fc.constantFrom(
          '%00',
          `${prefix}_%00`,
          '%ED%A0%80',
          `${prefix}_01M808QC4BEWC3KY6QSW94ETY%ED%A0%80`,
          ...HOSTILE_PATH_SEGMENTS,
          `${prefix}_`,
          ulidBodyExample,
          ulidBodyExample.toLowerCase(),
        ),
      ),
    },
  );
}
const ulidBodyExample = '01M808QC4BEWC3KY6QSW94ETYF';

/** `arb` one time in `oneIn`, else null (fc.option's `freq` gives the odds of null instead). */
function maybe<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

export const JUNK_QUERY = [
  '',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%',
  '%zz',
  '%FF',
  'x'.repeat(300),
  '-1',
  '0',
  '1e3',
  'true',
  '[]',
  '{}',
  "'",
  '2026-13-45T00:00:00Z',
  '0000-01-01T00:00:00Z',
];
const queryValue = (valid: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...valid).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.constantFrom(...JUNK_QUERY) },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.string({ unit: anyUnit, maxLength: 6 }).map((s) => escape(s)) },
  );
const LIMITS = [
  '0',
  '-1',
  '1',
  '2',
  '200',
  '201',
  '10000',
  '10001',
  '1e3',
  'abc',
  '',
  '1.5',
  '99999999999999999999999',
  '0x10',
  '%205',
  '5%20',
  'NaN',
  'Infinity',
  '-0',
  '%00',
  '%ED%A0%80',
];

/** The query string of a case: list filters, cursor and limit (valid, junk, repeated), unknown parameters. */
function queryArb(e: RouteEntry): fc.Arbitrary<string> {
  const parts: fc.Arbitrary<string[]>[] = [];
  for (const [name, valid] of Object.entries(e.query ?? {})) {
    parts.push(
      maybe(fc.array(queryValue(valid), { minLength: 1, maxLength: 2 }), 2).map((vs) =>
        (vs ?? []).map((v) => `${name}=${v}`),
      ),
    );
  }
  if (e.list) {
    const cursor = fc.oneof(
      fc.constant('@cursor'),
      fc.constant('@foreign-cursor'),
      fc.constantFrom(...JUNK_QUERY),
      fc.string({ maxLength: 40 }).map(encodeURIComponent),
      fc.constant('A'.repeat(3000)),
    );
    parts.push(maybe(cursor, 2).map((c) => (c === null ? [] : [`cursor=${c}`])));
    parts.push(
      maybe(fc.array(fc.constantFrom(...LIMITS), { minLength: 1, maxLength: 2 }), 2).map((ls) =>
        (ls ?? []).map((l) => `limit=${l}`),
      ),
    );
  }
  parts.push(
    maybe(fc.constantFrom('foo=bar', 'limit', '=', '&&', 'a[b]=c', '%00=1', '%ED%A0%80=1'), 6).map((u) =>
      u === null ? [] : [u],
    ),
  );
  return fc.tuple(...parts).map((ps) => ps.flat().join('&'));
}

// Header values a client can send: visible latin-1, no leading or trailing blanks.
export const headerValue = fc.string({
  unit: fc
    .integer({ min: 0x21, max: 0xff })
    .filter((c) => c < 0x7f || c > 0x9f)
    .map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 200,
});

export interface CaseHeaders {
  auth: 'admin' | 'none' | 'revoked' | 'lowercase' | { raw: string };
  contentType: 'default' | 'absent' | string;
  accept: string | null;
  idempotencyKey: string | null;
  apiVersion: string | null;
  requestId: string | null;
  method: string | null;
}

const headersArb: fc.Arbitrary<CaseHeaders> = fc.record({
  auth: fc.oneof(
    { weight: 12, arbitrary: fc.constant<CaseHeaders['auth']>('admin') },
    { weight: 1, arbitrary: fc.constantFrom<CaseHeaders['auth']>('none', 'revoked', 'lowercase') },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          headerValue,
          headerValue.map((v) => `Bearer ${v}`),
          fc
            .string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 43, maxLength: 43 })
            .map((s) => `Bearer sk_live_${s}`),
          fc.constant('Basic YWRtaW46YWRtaW4='),
          // SSO session token shapes (a JWT: three base64url segments): an unsigned one, a random one.
          fc.constant('Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4Iiwib3JnX2lkIjoib3JnXzEifQ.'),
          fc
            .array(fc.base64String({ minLength: 4, maxLength: 60 }), { minLength: 3, maxLength: 3 })
            .map(
              (parts) =>
                `Bearer ${parts.map((p) => p.replace(/[=]/g, '').replace(/\+/g, '-').replace(/\//g, '_')).join('.')}`,
            ),
        )
        .map((raw) => ({ raw })),
    },
  ),
  contentType: fc.oneof(
    { weight: 10, arbitrary: fc.constant('default') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'absent',
        'application/json; charset=utf-8',
        'application/json; charset=UTF-8',
        'application/merge-patch+json',
        'application/problem+json',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json; charset=nonsense',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'json',
        '*/*',
      ),
    },
    { weight: 1, arbitrary: headerValue },
  ),
  accept: maybe(
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'text/event-stream',
        'text/csv',
        'text/csv;q=0.5, application/json;q=0.9',
        'text/event-stream, text/csv',
        'text/html',
        'application/problem+json',
        '*/*',
        'image/png',
      ),
      headerValue,
    ),
    2,
  ),
  idempotencyKey: maybe(
    fc.oneof(
      fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
        minLength: 1,
        maxLength: 40,
      }),
      fc.constant('fuzz-reused-key'),
      fc.constant('k'.repeat(256)),
      headerValue,
    ),
    4,
  ),
  apiVersion: maybe(
    fc.oneof(
      fc.constantFrom('2026-11-01', '2026-02-29', '2030-01-01', '1999-01-01', '2026-11-1', '9999-99-99', 'yesterday'),
      headerValue,
    ),
    5,
  ),
  requestId: maybe(fc.oneof(fc.constantFrom('req-123', 'a'.repeat(129), 'x:y.z-1'), headerValue), 5),
  method: maybe(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), 15),
});

export interface Case {
  ids: PathId[];
  query: string;
  body: Body;
  headers: CaseHeaders;
}

export function caseArb(e: RouteEntry): fc.Arbitrary<Case> {
  const params = [...e.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  return fc.record({
    ids: fc.tuple(...params.map(pathIdArb)).map((t) => [...t]),
    query: queryArb(e),
    body: bodyArb(e),
    headers: headersArb,
  });
}
