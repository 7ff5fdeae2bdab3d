/**
 * The authorization matrix: every route of the table (routes.ts) against every one of the 17 scopes.
 * A key holding only scope S, and a key holding every scope but the route's, is refused with 403
 * `auth.insufficient_scope` naming the route's scope exactly when it lacks it; it is never refused
 * for scope when it holds it (or `admin`): it gets a 2xx, or the problem the route declares for this
 * deployment where no API key can succeed (RouteEntry.expect: organization create and delete, invite
 * accept); no credential is 401. Then: no route lets a key obtain or
 * act with more than its own scopes (grant rule on create, rotate, revoke; Idempotency-Key replays
 * across keys; rotation keeps scopes exactly).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../lib/scopes.ts';
import { buildApiKey, call, expectProblem, type Reply } from '../support/harness.ts';
import { budgetMs, cases } from './profile.ts';
import {
  buildFixture,
  orgDigest,
  responseViolations,
  startReliabilityApp,
  validRequest,
  type OrgFixture,
  type ReliabilityApp,
} from './fixture.ts';
import { checkTable, expectedAnswer, routeKey, ROUTES, type RouteEntry } from './routes.ts';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20261124);

let r: ReliabilityApp;
let fx: OrgFixture;
/** Secrets of keys holding exactly one scope. */
const only = new Map<Scope, string>();
/** Secrets of keys holding every scope but one (and not `admin`, which implies all). */
const allBut = new Map<Scope, string>();

const send = async (e: RouteEntry, key: string | undefined, req: { path: string; body?: unknown }): Promise<Reply> =>
  call(r.app, e.method, req.path, { key, ...(req.body === undefined ? {} : { json: req.body }) });

/** Sends a request that must be refused for lacking `scope`, and checks that it changed nothing. */
async function expectRefusedFor(
  e: RouteEntry,
  key: string,
  req: { path: string; body?: unknown },
  scope: string,
  what: string,
): Promise<void> {
  const before = await orgDigest(r.app, fx.org.orgId);
  const res = await send(e, key, req);
  expect(await orgDigest(r.app, fx.org.orgId), `${what}: a refused request changed the organization`).toEqual(before);
  try {
    expectProblem(res, 403, 'auth.insufficient_scope');
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
  }
  expect(res.body.required_scope, what).toBe(scope);
  expect(res.body.detail, what).toContain(`'${scope}'`);
}

/** Served: a 2xx, or exactly the problem the route declares for this deployment (RouteEntry.expect). */
function expectAllowed(e: RouteEntry, res: Reply, what: string): void {
  const declared = expectedAnswer(e, r.app.config.DEPLOYMENT_MODE);
  const v = responseViolations(res.status, res.headers, res.text, e.method, declared);
  if (v.length) throw new Error(`${what}: ${v.join('; ')} — ${res.text.slice(0, 300)}`);
  if (declared) {
    if (res.status !== declared.status || res.body?.code !== declared.code)
      throw new Error(
        `${what}: expected the route's declared ${declared.status} ${declared.code}, got ${res.status} ${res.text.slice(0, 300)}`,
      );
    return;
  }
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${what}: a key holding the route's scope got ${res.status} ${res.text.slice(0, 300)}`);
}

beforeAll(async () => {
  r = await startReliabilityApp({ deliveries: true });
  fx = await buildFixture(r);
  const scoped = SCOPES.filter((s) => s !== 'admin');
  for (const s of SCOPES)
    only.set(s, (await buildApiKey(r.app, fx.org.orgId, { name: `only ${s}`, scopes: [s] })).secret);
  const needed = new Set(
    ROUTES.map((e) => e.scope).filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
  );
  for (const s of needed)
    allBut.set(
      s,
      (await buildApiKey(r.app, fx.org.orgId, { name: `all but ${s}`, scopes: scoped.filter((x) => x !== s) })).secret,
    );
}, 60_000);
afterAll(async () => r?.close());

describe('the route table', () => {
  it('lists exactly the routes the app mounts, each with the access its router declares', () => {
    expect(checkTable(r.app.built.routeTable)).toEqual([]);
  });

  it('would notice a route missing from the table, an extra entry, and a wrong scope', () => {
    const declared = r.app.built.routeTable;
    expect(
      checkTable([
        ...declared,
        { method: 'GET', path: '/v1/new-thing', access: 'scans:read', responds: [], errors: [] },
      ]),
    ).toEqual([expect.stringContaining('GET /v1/new-thing')]);
    expect(checkTable(declared.filter((d) => d.path !== '/v1/me'))).toEqual([expect.stringContaining('GET /v1/me')]);
    expect(
      checkTable(
        declared.map((d) =>
          d.path === '/v1/scans' && d.method === 'POST' ? { ...d, access: 'scans:read' as const } : d,
        ),
      ),
    ).toEqual([expect.stringContaining("POST /v1/scans: the app declares access 'scans:read'")]);
  });
});

describe.each(ROUTES.map((e) => [routeKey(e), e] as const))('%s', (_key, e) => {
  if (e.scope === 'public') {
    it('answers without a credential, and with any key', async () => {
      const req = await validRequest(e, fx, r.receiver.url);
      expectAllowed(e, await send(e, undefined, req), 'no credential');
      for (const [s, key] of only) expectAllowed(e, await send(e, key, req), `a key holding only ${s}`);
    });
    return;
  }

  it('no credential → 401 auth.unauthenticated', async () => {
    const req = await validRequest(e, fx, r.receiver.url, { fresh: false });
    expectProblem(await send(e, undefined, req), 401, 'auth.unauthenticated');
  });

  if (e.scope === 'authenticated' || e.scope === 'identified') {
    it('is unscoped: a key holding any single scope is served', async () => {
      for (const [s, key] of only)
        expectAllowed(e, await send(e, key, await validRequest(e, fx, r.receiver.url)), `a key holding only ${s}`);
    });
    return;
  }

  const needed = e.scope;
  it(`needs ${needed}: each single-scope key is served exactly when it holds it (or admin)`, async () => {
    for (const [s, key] of only) {
      const holds = s === needed || s === 'admin';
      // A refused request must change nothing, so it names the fixture's own resources.
      const req = await validRequest(e, fx, r.receiver.url, { fresh: holds });
      if (holds) expectAllowed(e, await send(e, key, req), `a key holding only ${s}`);
      else await expectRefusedFor(e, key, req, needed, `a key holding only ${s}`);
    }
  });

  it(`a key holding every scope but ${needed} is refused, naming ${needed}`, async () => {
    const req = await validRequest(e, fx, r.receiver.url, { fresh: false });
    await expectRefusedFor(e, allBut.get(needed)!, req, needed, 'all scopes but the needed one');
  });
});

describe('no route lets a key obtain or act with more than its own scopes', () => {
  const keyCount = async () =>
    (await r.app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [fx.org.orgId])).rows[0]
      .n as number;

  it('create: a key cannot grant a scope it lacks (403 api_keys.scope_escalation naming it)', async () => {
    const caller = only.get('api_keys:write')!;
    const before = await keyCount();
    for (const s of SCOPES.filter((x) => x !== 'api_keys:write')) {
      for (const scopes of [[s], ['api_keys:write', s]]) {
        const res = await call(r.app, 'POST', '/v1/api-keys', { key: caller, json: { name: 'escalate', scopes } });
        expectProblem(res, 403, 'api_keys.scope_escalation');
        expect(res.body.scopes).toEqual([s]);
      }
    }
    // Every scope but admin is still not admin.
    const res = await call(r.app, 'POST', '/v1/api-keys', {
      key: allBut.get('scans:read')!,
      json: { name: 'escalate', scopes: ['admin'] },
    });
    expectProblem(res, 403, 'api_keys.scope_escalation');
    expect(await keyCount()).toBe(before);
    expect(
      (await call(r.app, 'POST', '/v1/api-keys', { key: caller, json: { name: 'same', scopes: ['api_keys:write'] } }))
        .status,
    ).toBe(201);
  });

  it('rotate and revoke: a key cannot act on a key holding a scope it lacks (403), and nothing changes', async () => {
    const caller = only.get('api_keys:write')!;
    for (const s of SCOPES.filter((x) => x !== 'api_keys:write')) {
      const target = (await buildApiKey(r.app, fx.org.orgId, { name: `holds ${s}`, scopes: ['api_keys:write', s] })).key
        .id;
      for (const action of ['rotate', 'revoke']) {
        const res = await call(r.app, 'POST', `/v1/api-keys/${target}:${action}`, { key: caller });
        expectProblem(res, 403, 'api_keys.scope_escalation');
      }
      const got = await call(r.app, 'GET', `/v1/api-keys/${target}`, { key: fx.org.admin });
      expect(got.body.revoked_at, `${s}: revoked anyway`).toBeNull();
      const successors = await r.app.db.query(
        'SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND rotated_from = $2',
        [fx.org.orgId, target],
      );
      expect(successors.rows[0].n, `${s}: rotated anyway`).toBe(0);
    }
  });

  it.each(ROUTES.filter((e) => e.method === 'POST' || e.method === 'PUT').map((e) => [routeKey(e), e] as const))(
    'Idempotency-Key: %s replayed by another key of the organization → 409 idempotency.key_reused, never the first response (a declared 5xx: stored for no one)',
    async (_k, e) => {
      const first = only.get('admin')!;
      const second = (await buildApiKey(r.app, fx.org.orgId, { name: 'second admin', scopes: ['admin'] })).secret;
      const req = await validRequest(e, fx, r.receiver.url);
      const headers = { 'idempotency-key': `authz-${e.path}-${Date.now()}` };
      const json = req.body === undefined ? {} : { json: req.body };
      const a = await call(r.app, e.method, req.path, { key: first, headers, ...json });
      expectAllowed(e, a, 'first request');
      const b = await call(r.app, e.method, req.path, { key: second, headers, ...json });
      if (a.status >= 500) {
        // A 5xx stores nothing (the key is released): the other key's request runs afresh.
        expect(b.headers.get('idempotent-replayed')).toBeNull();
        expectAllowed(e, b, 'the second key, after a 5xx');
        return;
      }
      expect(b.headers.get('idempotent-replayed'), "the second key got the first key's stored response").toBeNull();
      expectProblem(b, 409, 'idempotency.key_reused');
      // The key that made the request still gets its replay.
      const again = await call(r.app, e.method, req.path, { key: first, headers, ...json });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.status).toBe(a.status);
    },
  );

  it(
    "a rotated successor holds exactly the old key's scopes (generated scope sets)",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: SCOPES.length }),
          async (scopes) => {
            const old = await call(r.app, 'POST', '/v1/api-keys', {
              key: fx.org.admin,
              json: { name: 'to rotate', scopes },
            });
            expect(old.status).toBe(201);
            const next = await call(r.app, 'POST', `/v1/api-keys/${old.body.id}:rotate`, { key: fx.org.admin });
            expect(next.status).toBe(201);
            expect([...next.body.scopes].sort()).toEqual([...scopes].sort());
            expect(next.body.rotated_from).toBe(old.body.id);
            const me = await call(r.app, 'GET', '/v1/me', { key: next.body.secret });
            expect([...me.body.scopes].sort()).toEqual([...scopes].sort());
          },
        ),
        { numRuns: cases(20, 200), seed: SEED },
      );
    },
    budgetMs(30_000, 300_000),
  );
});
