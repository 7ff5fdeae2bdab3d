/**
 * Fuzzing every route of the table (routes.ts): mutated valid bodies, random JSON, non-JSON, 10,000
 * levels of nesting, huge and odd numbers, long strings, arrays where objects go, lone surrogates
 * and NUL in bodies, keys, query strings and paths; credentials, Idempotency-Key,
 * Service-Api-Version, X-Request-Id, Content-Type and Accept variants; every list filter, cursor and
 * limit with junk; junk, foreign-prefixed and unknown path ids. Every answer must keep the contract:
 * below 500, an X-Request-Id, errors as problem+json with a dot-namespaced code and the HTTP status.
 *
 * Seeds are fixed (one per route, from RELIABILITY_SEED): a failure names its seed and shrunk
 * counterexample, and reproduces. No 5xx is allowed but a route's declared answer for this deployment
 * (RouteEntry.expect: 501 from the organization routes, which self-hosted deployments do not support):
 * the app runs no model pool (in-process detectors only), so the other legitimate 5xx of the API, 503
 * `service.overloaded` from a full model queue, cannot occur here.
 *
 * The generators are in fuzz/: json.ts (exact JSON text, mutations), values.ts (hostile values),
 * bodies.ts and cases.ts (a whole request).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { caseArb, type Case, type CaseHeaders, type PathId } from './fuzz/cases.ts';
import { countStrings, Deep, Long, mutate, pathsOf, RawJson, toText, type Json, type Mutation } from './fuzz/json.ts';
import {
  expectedAnswer,
  fillPath,
  PARAM_RESOURCE,
  PARAM_TOKEN,
  routeKey,
  ROUTES,
  scanBody,
  withReceiver,
  type RouteEntry,
} from './routes.ts';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20261124);
/** Cases per route: ≥ 1,000 in all in the short run, ≥ 10,000 in the long one (58 routes today). */
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
    const token = PARAM_TOKEN[p];
    if (id.kind === 'existing' && token) values.set(p, fx.tokens[token]);
    else if (id.kind === 'existing') values.set(p, e.consumes ? await fx.fresh(resource) : fx.ids[resource]);
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
  const declared = expectedAnswer(e, r.app.config.DEPLOYMENT_MODE);
  const violations = responseViolations(res.status, res.headers, text, sent.method, declared);
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
