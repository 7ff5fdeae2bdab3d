/**
 * Fuzzing every route of the table (routes.ts): mutated valid bodies, random JSON, non-JSON, 10,000
 * levels of nesting, huge and odd numbers, long strings, arrays where objects go, lone surrogates
 * and NUL in bodies, keys, query strings and paths; credentials, Idempotency-Key,
 * Service-Api-Version, X-Request-Id, Content-Type and Accept variants; every list filter, cursor and
 * limit with junk; junk, foreign-prefixed and unknown path ids. Every answer must keep the contract:
 * below 500, an X-Request-Id, errors as problem+json with a dot-namespaced code and the HTTP status.
 *
 * Seeds are fixed (one per route, from RELIABILITY_SEED): a failure names its seed and shrunk
 * counterexample, and reproduces. No 5xx is allowed at all: the app runs no model pool (in-process
 * detectors only), so the one legitimate 5xx of the API, 503 `service.overloaded` from a full model
 * queue, cannot occur here.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX } from '../../lib/ids.ts';
import { call } from '../support/harness.ts';
import { budgetMs, cases } from './profile.ts';
import {
  buildFixture,
  responseViolations,
  startReliabilityApp,
  validRequest,
  type OrgFixture,
  type ReliabilityApp,
} from './fixture.ts';
import {
  fillPath,
  ID_RESOURCES,
  PARAM_RESOURCE,
  RESOURCES,
  routeKey,
  ROUTES,
  scanBody,
  withReceiver,
  type RouteEntry,
} from './routes.ts';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20261124);
/** Cases per route: ≥ 1,000 in all in the short run, ≥ 10,000 in the long one (29 routes today). */
const RUNS = cases(40, 400);

let r: ReliabilityApp;
let fx: OrgFixture;
let revokedKey: string;
/** Requests sent by the random cases and by the sweeps (printed at the end: docs/reliability.md's figures). */
const sent = { random: 0, sweep: 0 };
/** A real cursor of each list (its second page), by route key. */
const cursors = new Map<string, string>();

beforeAll(async () => {
  // Deliveries off: fuzzed bodies register webhook URLs nobody chose; with the pump stopped nothing
  // is ever sent to them (registration itself resolves no names: see startReliabilityApp).
  r = await startReliabilityApp({ deliveries: false });
  fx = await buildFixture(r);
  // A second resource of each kind, so every list has a second page and a real cursor.
  await buildFixture(r, fx.org);
  const revoked = await call(r.app, 'POST', '/v1/api-keys', {
    key: fx.org.admin,
    json: { name: 'revoked', scopes: ['scans:read'] },
  });
  revokedKey = revoked.body.secret;
  await call(r.app, 'POST', `/v1/api-keys/${revoked.body.id}:revoke`, { key: fx.org.admin });
  for (const e of ROUTES.filter((x) => x.list)) {
    const req = await validRequest(e, fx, r.receiver.url, { fresh: false });
    const page = await call(r.app, 'GET', `${req.path}?limit=1`, { key: fx.org.admin });
    if (typeof page.body?.next_cursor === 'string') cursors.set(routeKey(e), page.body.next_cursor);
  }
}, 60_000);
afterAll(async () => r?.close());

// ---------------------------------------------------------------------------------------------
// Leaves that print short in a counterexample and serialize to exact JSON text.

/** JSON text placed verbatim (numbers JSON.stringify cannot write: -0, 1e400, 2**64 exactly). */
class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `raw(${this.text})`;
  }
}

/** `levels` nested arrays or objects: 10,000 levels is 20-50 KB of text. */
class Deep {
  constructor(
    readonly shape: 'array' | 'object',
    readonly levels: number,
  ) {}
  get text(): string {
    return this.shape === 'array'
      ? '['.repeat(this.levels) + ']'.repeat(this.levels)
      : '{"a":'.repeat(this.levels) + '1' + '}'.repeat(this.levels);
  }
  [fc.toStringMethod](): string {
    return `deep(${this.shape}×${this.levels})`;
  }
}

/** A string of `length` copies of `unit`. */
class Long {
  constructor(
    readonly unit: string,
    readonly length: number,
  ) {}
  get value(): string {
    return this.unit.repeat(this.length);
  }
  [fc.toStringMethod](): string {
    return `long(${JSON.stringify(this.unit)}×${this.length})`;
  }
}

type Json = null | boolean | number | string | RawJson | Deep | Long | Json[] | { [k: string]: Json };

/** JSON text of a body; JSON.stringify writes a lone surrogate as its `\udXXX` escape and NUL as `\u0000`. */
function toText(v: Json): string {
  if (v instanceof RawJson || v instanceof Deep) return v.text;
  if (v instanceof Long) return JSON.stringify(v.value);
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// Values

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ulidBody = fc.string({ unit: fc.constantFrom(...CROCKFORD), minLength: 26, maxLength: 26 });
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const LONE = ['\ud800', '\udfff', 'a\ud800b', '\udc00\ud800', '\ud83d'];
const NUL = ['\u0000', 'a\u0000b', '\u0000\u0000'];

const weirdString: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: anyUnit, maxLength: 12 }),
  fc.constantFrom(
    ...LONE,
    ...NUL,
    '',
    ' ',
    '\t',
    '\u202e',
    '\ufeff',
    '𝕏',
    '..',
    '/',
    '%00',
    '=1+1',
    "'; DROP TABLE scans;--",
  ),
  fc.constantFrom(
    new Long('x', 300),
    new Long('é', 5_000),
    new Long('a', 100_000),
    new Long('\ud800', 1_000),
    new Long('\u0000', 1_000),
  ),
  fc.constantFrom('18446744073709551616', '-9223372036854775809', '1e308', '0x10', 'NaN', 'Infinity', '-0'),
  fc.constantFrom(
    '2026-11-24T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2026-02-30T00:00:00Z',
    '2026-11-24T00:00:00+23:59',
    '1970-01-01T00:00:00-00:00',
    '+275760-09-13T00:00:00.000Z',
  ),
  fc.tuple(fc.constantFrom(...Object.values(ID_PREFIX)), ulidBody).map(([p, b]) => `${p}_${b}`),
);

const weirdNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 0.5, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 604_800, 604_801),
  fc
    .constantFrom(
      '1e308',
      '-1e308',
      '1e400',
      '-1e400',
      '-0',
      '18446744073709551616',
      '-18446744073709551616',
      '123456789012345678901234567890',
      '5e-324',
      '1E2',
      '0.1e-999',
    )
    .map((t) => new RawJson(t)),
);

/** Object keys: ordinary, unknown, with lone surrogates or NUL. */
const weirdKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(...LONE, ...NUL, '__proto__', 'constructor', 'name', 'id', ''),
);

const weirdValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: weirdString },
  { weight: 3, arbitrary: weirdNumber },
  { weight: 2, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      new Deep('array', 10_000),
      new Deep('object', 10_000),
      new Deep('object', 1_000),
      new Deep('array', 100),
    ),
  },
  { weight: 1, arbitrary: fc.array(weirdString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(weirdKey, weirdString, { maxKeys: 3 }) },
);

// ---------------------------------------------------------------------------------------------
// Bodies: a valid one with mutations at chosen paths, or something else altogether.

/**
 * One change to a valid body at its `at`-th path: replace the node, delete it, add a key, wrap it in
 * an array, or `taint` the `at`-th string (or key) with `taint` — which keeps the body otherwise
 * valid, so lone surrogates and NUL reach the handlers and the store.
 */
interface Mutation {
  at: number;
  op: 'replace' | 'delete' | 'add' | 'wrap' | 'taint';
  key: string;
  value: Json;
  taint: string;
}
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom<Mutation['op']>(
    'replace',
    'replace',
    'replace',
    'delete',
    'add',
    'wrap',
    'taint',
    'taint',
    'taint',
  ),
  key: weirdKey,
  value: weirdValue,
  taint: fc.constantFrom(...LONE, ...NUL, '\ufffe', '\u2028', '\\', '"', '%00'),
});

type Path = (string | number)[];

/** Every path inside a plain JSON value (the root included), depth first. */
function pathsOf(v: Json, base: Path = [], out: Path[] = []): Path[] {
  out.push(base);
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...base, i], out));
  else if (v !== null && typeof v === 'object' && !(v instanceof RawJson || v instanceof Deep || v instanceof Long)) {
    for (const [k, x] of Object.entries(v)) pathsOf(x, [...base, k], out);
  }
  return out;
}

function isObject(v: Json): v is { [k: string]: Json } {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !(v instanceof RawJson || v instanceof Deep || v instanceof Long)
  );
}

/** `v` with its `at`-th string value or key (modulo their number) tainted. */
function taint(v: Json, m: Mutation): Json {
  let n = 0;
  const total = countStrings(v);
  if (total === 0) return v;
  const target = m.at % total;
  const walk = (node: Json): Json => {
    if (typeof node === 'string') return n++ === target ? `${node}${m.taint}` : node;
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(node)) out[n++ === target ? `${k}${m.taint}` : k] = walk(x);
    return out;
  };
  return walk(v);
}

function countStrings(v: Json): number {
  if (typeof v === 'string') return 1;
  if (Array.isArray(v)) return v.reduce<number>((s, x) => s + countStrings(x), 0);
  if (!isObject(v)) return 0;
  return Object.entries(v).reduce((s, [, x]) => s + 1 + countStrings(x), 0);
}

/** `v` with `m` applied at the m.at-th path (modulo their number). */
function mutate(v: Json, m: Mutation): Json {
  if (m.op === 'taint') return taint(v, m);
  const paths = pathsOf(v);
  const path = paths[m.at % paths.length]!;
  const apply = (node: Json, rest: Path): Json => {
    if (rest.length === 0) {
      if (m.op === 'replace') return m.value;
      if (m.op === 'wrap') return [node];
      if (m.op === 'add' && isObject(node)) return { ...node, [m.key]: m.value };
      return node;
    }
    const [head, ...tail] = rest;
    if (tail.length === 0 && m.op === 'delete') {
      if (Array.isArray(node)) return node.filter((_x, i) => i !== head);
      if (isObject(node)) {
        const { [head as string]: _gone, ...kept } = node;
        return kept;
      }
    }
    if (Array.isArray(node)) return node.map((x, i) => (i === head ? apply(x, tail) : x));
    if (isObject(node)) return { ...node, [head as string]: apply(node[head as string]!, tail) };
    return node;
  };
  return apply(v, path);
}

type Body =
  | { kind: 'none' }
  | { kind: 'valid'; variant: number }
  | { kind: 'mutated'; variant: number; mutations: Mutation[] }
  | { kind: 'json'; value: Json }
  | { kind: 'text'; text: string };

const nonJson = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.constantFrom(
    '{',
    '{"a":1',
    "{'a':1}",
    'nul',
    'true false',
    '{"a":1}{"b":2}',
    '\u0000',
    '"\\ud800"',
    '{"\\ud800":1}',
    '[1,]',
    '{"a":01}',
    '\ufeff{}',
    '{"a":"\\x00"}',
    '1'.repeat(400),
  ),
);

function bodyArb(e: RouteEntry): fc.Arbitrary<Body> {
  if (e.method === 'GET') return fc.constant({ kind: 'none' });
  const random = fc.oneof(
    { weight: 2, arbitrary: fc.jsonValue().map((value): Body => ({ kind: 'json', value: value as Json })) },
    { weight: 2, arbitrary: nonJson.map((text): Body => ({ kind: 'text', text })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(new Deep('array', 10_000), new Deep('object', 10_000))
        .map((value): Body => ({ kind: 'json', value })),
    },
    // Over the 1 MiB body limit.
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'json', value: new Long('x', 1_100_000) }) },
  );
  if (!e.bodies)
    return fc.oneof({ weight: 4, arbitrary: fc.constant<Body>({ kind: 'none' }) }, { weight: 1, arbitrary: random });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    { weight: 3, arbitrary: fc.nat().map((variant): Body => ({ kind: 'valid', variant })) },
    {
      weight: 12,
      arbitrary: fc
        .record({
          variant: fc.nat(),
          mutations: fc.oneof(
            { weight: 3, arbitrary: fc.tuple(mutation).map((m) => [...m]) },
            { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) },
          ),
        })
        .map((b): Body => ({ kind: 'mutated', ...b })),
    },
    { weight: 3, arbitrary: random },
  );
}

// ---------------------------------------------------------------------------------------------
// Paths, queries, headers

/** A path id: `existing` is resolved when the case runs (a fresh resource for routes that use theirs up). */
type PathId = { kind: 'existing' } | { kind: 'literal'; text: string };

function pathIdArb(param: string): fc.Arbitrary<PathId> {
  const resource = PARAM_RESOURCE[param]!;
  const prefix = ID_PREFIX[RESOURCES[resource].idKind];
  const literal = (a: fc.Arbitrary<string>) => a.map((text): PathId => ({ kind: 'literal', text }));
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<PathId>({ kind: 'existing' }) },
    { weight: 2, arbitrary: literal(ulidBody.map((b) => `${prefix}_${b}`)) },
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
          '%',
          '%zz',
          '%2F',
          '..',
          '%2e%2e',
          '%C0%80',
          '%FF',
          'a'.repeat(3000),
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

const JUNK_QUERY = [
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
const headerValue = fc.string({
  unit: fc
    .integer({ min: 0x21, max: 0xff })
    .filter((c) => c < 0x7f || c > 0x9f)
    .map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 200,
});

interface CaseHeaders {
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

interface Case {
  ids: PathId[];
  query: string;
  body: Body;
  headers: CaseHeaders;
}

function caseArb(e: RouteEntry): fc.Arbitrary<Case> {
  const params = [...e.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  return fc.record({
    ids: fc.tuple(...params.map(pathIdArb)).map((t) => [...t]),
    query: queryArb(e),
    body: bodyArb(e),
    headers: headersArb,
  });
}

// ---------------------------------------------------------------------------------------------
// Running one case

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Blob | undefined;
}

async function build(e: RouteEntry, c: Case): Promise<Sent> {
  const params = [...e.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  const values = new Map<string, string>();
  for (const [i, p] of params.entries()) {
    const id = c.ids[i]!;
    const resource = PARAM_RESOURCE[p]!;
    if (id.kind === 'existing') values.set(p, e.consumes ? await fx.fresh(resource) : fx.ids[resource]);
    else if (id.text.startsWith('@')) values.set(p, fx.ids[id.text.slice(1) as keyof typeof fx.ids]);
    else values.set(p, id.text);
  }
  let query = c.query.replace(
    '@foreign-cursor',
    encodeURIComponent([...cursors.values()].find((x) => x !== cursors.get(routeKey(e))) ?? 'none'),
  );
  query = query.replace('@cursor', encodeURIComponent(cursors.get(routeKey(e)) ?? 'none'));
  const url = `${r.app.baseUrl}${fillPath(e.path, (p) => values.get(p)!)}${query ? `?${query}` : ''}`;

  const h = c.headers;
  const headers: Record<string, string> = {};
  if (h.auth === 'admin') headers.authorization = `Bearer ${fx.org.admin}`;
  else if (h.auth === 'revoked') headers.authorization = `Bearer ${revokedKey}`;
  else if (h.auth === 'lowercase') headers.authorization = `bearer ${fx.org.admin}`;
  else if (h.auth !== 'none') headers.authorization = h.auth.raw;
  if (h.accept !== null) headers.accept = h.accept;
  if (h.idempotencyKey !== null) headers['idempotency-key'] = h.idempotencyKey;
  if (h.apiVersion !== null) headers['service-api-version'] = h.apiVersion;
  if (h.requestId !== null) headers['x-request-id'] = h.requestId;

  let text: string | undefined;
  const b = c.body;
  if (b.kind === 'valid' || b.kind === 'mutated') {
    const bodies = e.bodies!(fx.ids).map((x) => withReceiver(x, r.receiver.url) as Json);
    let v: Json = bodies[b.variant % bodies.length] ?? null;
    if (b.kind === 'mutated') for (const m of b.mutations) v = mutate(v, m);
    text = toText(v);
  } else if (b.kind === 'json') text = toText(b.value);
  else if (b.kind === 'text') text = b.text;

  const method = h.method ?? e.method;
  let body: string | Blob | undefined = method === 'GET' || method === 'HEAD' ? undefined : text;
  if (body !== undefined) {
    // A Blob without a type: fetch then sends no Content-Type at all.
    if (h.contentType === 'absent') body = new Blob([body]);
    else headers['content-type'] = h.contentType === 'default' ? 'application/json' : h.contentType;
  }
  return { method, url, headers, body };
}

const MAX_SHOWN = 600;
const shown = (s: string) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}… (${s.length} chars)` : s);

async function runCase(e: RouteEntry, c: Case): Promise<void> {
  const sent = await build(e, c);
  const res = await fetch(sent.url, {
    method: sent.method,
    headers: sent.headers,
    body: sent.body,
    redirect: 'manual',
  });
  const text = await res.text();
  const violations = responseViolations(res.status, res.headers, text, sent.method);
  // Every /v1 answer carries the rate-limit headers (docs/api.md), errors included.
  if (new URL(sent.url).pathname.startsWith('/v1/') && !res.headers.get('ratelimit-limit'))
    violations.push('no RateLimit-Limit');
  if (violations.length === 0) return;
  const body = typeof sent.body === 'string' ? sent.body : sent.body ? await sent.body.text() : '';
  throw new Error(
    [
      `${violations.join('; ')}`,
      `request: ${sent.method} ${shown(sent.url)}`,
      `headers: ${JSON.stringify(sent.headers)}`,
      `body: ${shown(body)}`,
      `answer: ${res.status} ${res.headers.get('content-type')} ${shown(text)}`,
    ].join('\n'),
  );
}

describe.each(ROUTES.map((e, i) => [routeKey(e), e, i] as const))('fuzzing %s', (_key, e, i) => {
  it(
    `${RUNS} cases keep the error contract (seed ${SEED + i})`,
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb(e), (c) => (sent.random++, runCase(e, c))),
        { numRuns: RUNS, seed: SEED + i },
      );
    },
    budgetMs(60_000, 600_000),
  );
});

/** Values every position of a valid body is swept with (and the taints every string and key gets). */
const HOSTILE: Json[] = [
  new Deep('object', 10_000),
  new Deep('array', 10_000),
  '\ud800',
  'a\u0000b',
  new RawJson('1e400'),
  new RawJson('-0'),
  new RawJson('18446744073709551616'),
  new Long('x', 100_000),
  null,
  [],
  {},
];
const TAINTS = ['\ud800', '\udc00', '\u0000'];

/** Every single-point mutation of every valid body of `e`: each path × each hostile value, each string × each taint. */
function sweep(e: RouteEntry): Case[] {
  const admin: CaseHeaders = {
    auth: 'admin',
    contentType: 'default',
    accept: null,
    idempotencyKey: null,
    apiVersion: null,
    requestId: null,
    method: null,
  };
  const ids = [...e.path.matchAll(/\{([a-z_]+)\}/g)].map((): PathId => ({ kind: 'existing' }));
  const out: Case[] = [];
  const bodies = e.bodies!(fx.ids) as Json[];
  bodies.forEach((v, variant) => {
    const mutations: Mutation[] = [];
    pathsOf(v).forEach((_p, at) =>
      HOSTILE.forEach((value) => mutations.push({ at, op: 'replace', key: '', value, taint: '' })),
    );
    for (let at = 0; at < countStrings(v); at++)
      for (const t of TAINTS) mutations.push({ at, op: 'taint', key: '', value: null, taint: t });
    for (const m of mutations)
      out.push({ ids, query: '', body: { kind: 'mutated', variant, mutations: [m] }, headers: admin });
  });
  return out;
}

describe.each(ROUTES.filter((e) => e.bodies).map((e) => [routeKey(e), e] as const))('sweeping %s', (_key, e) => {
  it(
    'every position of every valid body, with each hostile value, keeps the error contract',
    async () => {
      const failures: string[] = [];
      const all = sweep(e);
      for (const c of all) {
        sent.sweep++;
        try {
          await runCase(e, c);
        } catch (err) {
          failures.push(`${fc.stringify(c.body)}\n${(err as Error).message}`);
        }
      }
      if (failures.length)
        throw new Error(
          `${failures.length} of ${all.length} single-point mutations broke the contract:\n\n${failures.slice(0, 10).join('\n\n')}`,
        );
    },
    budgetMs(60_000, 120_000),
  );
});

describe('after the fuzzing', () => {
  it('the process still answers /healthz and a valid scan', async () => {
    expect((await call(r.app, 'GET', '/healthz')).status).toBe(200);
    const scan = await call(r.app, 'POST', '/v1/scans', { key: fx.org.admin, json: scanBody(null) });
    expect(scan.status, scan.text).toBe(201);
    expect(scan.body.decision).toBeDefined();
    console.log(
      `fuzz (seed ${SEED}): ${ROUTES.length} routes, ${sent.random} random cases (shrinking included), ${sent.sweep} sweep cases`,
    );
  });
});
