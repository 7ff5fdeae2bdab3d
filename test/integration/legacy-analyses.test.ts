import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysisExists } from '../../services/legacy-analyses.ts';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  org = await buildOrg(app);
  other = await buildOrg(app);
});
afterAll(async () => app?.close());

const create = (json: unknown, key = org.admin) => call(app, 'POST', '/v1/legacy-analyses', { key, json });
const get = (id: number | string, key = org.admin) => call(app, 'GET', `/v1/legacy-analyses/${id}`, { key });
const del = (id: number | string, key = org.admin) => call(app, 'DELETE', `/v1/legacy-analyses/${id}`, { key });
const list = (query = '', key = org.admin) => call(app, 'GET', `/v1/legacy-analyses${query}`, { key });

async function newAnalysis(key: string, name = 'session'): Promise<number> {
  const r = await create({ name }, key);
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return r.body.analysis_id as number;
}

const ids = (r: { body: { data: { analysis_id: number }[] } }) => r.body.data.map((a) => a.analysis_id);

describe('POST /v1/legacy-analyses', () => {
  it('numbers sessions 1, 2, 3 … per organization, with a Location and an audit row', async () => {
    const fresh = await buildOrg(app);
    const r = await create({ name: 'chatbot', description: 'the support bot' }, fresh.admin);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      analysis_id: 1,
      name: 'chatbot',
      description: 'the support bot',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(r.headers.get('location')).toBe('/v1/legacy-analyses/1');
    expect((await create({ name: 'second' }, fresh.admin)).body).toMatchObject({ analysis_id: 2, description: null });
    const elsewhere = await buildOrg(app);
    expect(await newAnalysis(elsewhere.admin)).toBe(1);
    const audit = await call(app, 'GET', '/v1/audit-events?resource_type=legacy_analysis', { key: fresh.admin });
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((e: { resource_id: string }) => e.resource_id)).toEqual(['2', '1']);
    expect(audit.body.data[1].change_summary).toContain('created');
  });

  it('gives concurrent creates distinct consecutive ids', async () => {
    const fresh = await buildOrg(app);
    const got = await Promise.all(Array.from({ length: 12 }, (_, i) => newAnalysis(fresh.admin, `s${i}`)));
    expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('never reuses a deleted id', async () => {
    const fresh = await buildOrg(app);
    await newAnalysis(fresh.admin);
    const two = await newAnalysis(fresh.admin);
    expect((await del(two, fresh.admin)).status).toBe(204);
    expect(await newAnalysis(fresh.admin)).toBe(3);
  });

  it('validates the body, reporting every issue', async () => {
    expectProblem(await create({}), 400, 'request.validation_failed');
    const r = await create({ name: '', description: 'x'.repeat(1001), extra: 1 });
    expectProblem(r, 400, 'request.validation_failed');
    const paths = (r.body.errors as { path: string }[]).map((e) => e.path).sort();
    // an unknown key is reported at the body root
    expect(paths).toEqual(['', 'description', 'name']);
    expectProblem(await create({ name: 'x'.repeat(256) }), 400, 'request.validation_failed');
    expect((await create({ name: 'x'.repeat(255), description: 'd'.repeat(1000) })).status).toBe(201);
    expect((await create({ name: 'n', description: null })).status).toBe(201);
  });
});

describe('GET and DELETE /v1/legacy-analyses/{analysis_id}', () => {
  it('reads and deletes only its own organization’s sessions', async () => {
    const mine = await newAnalysis(org.admin, 'mine');
    const r = await get(mine);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ analysis_id: mine, name: 'mine' });
    expect(r.body).not.toHaveProperty('created_by');
    // `other` has fewer sessions than `mine`'s number: the same number is unknown there.
    expectProblem(await get(mine, other.admin), 404, 'legacy_analyses.not_found');
    expectProblem(await del(mine, other.admin), 404, 'legacy_analyses.not_found');
    expect((await get(mine)).status).toBe(200);
    expect(await analysisExists(app.db, org.orgId, mine)).toBe(true);
    expect(await analysisExists(app.db, other.orgId, mine)).toBe(false);
  });

  it('a shared number names each organization’s own session', async () => {
    const a = await buildOrg(app);
    const b = await buildOrg(app);
    await newAnalysis(a.admin, 'a-one');
    await newAnalysis(b.admin, 'b-one');
    expect((await del(1, b.admin)).status).toBe(204);
    expect((await get(1, a.admin)).body.name).toBe('a-one');
    expectProblem(await get(1, b.admin), 404, 'legacy_analyses.not_found');
    expect(await analysisExists(app.db, b.orgId, 1)).toBe(false);
  });

  it('deletes once, with an audit row; then 404', async () => {
    const id = await newAnalysis(org.admin);
    const r = await del(id);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectProblem(await get(id), 404, 'legacy_analyses.not_found');
    expectProblem(await del(id), 404, 'legacy_analyses.not_found');
    const { rows } = await app.db.query(
      `SELECT change_summary FROM audit_events WHERE org_id = $1 AND resource_type = 'legacy_analysis'
          AND resource_id = $2 ORDER BY id`,
      [org.orgId, String(id)],
    );
    expect(rows.map((x) => x.change_summary as string)).toEqual([
      `legacy analysis session ${id} created`,
      `legacy analysis session ${id} deleted`,
    ]);
  });

  it('refuses ids that are not positive decimal integers', async () => {
    for (const bad of ['0', '-1', '01', 'abc', '1.5', '1e3', '2147483648', '99999999999', '%20'])
      expectProblem(await get(bad), 400, 'request.validation_failed');
    expectProblem(await get(2147483647), 404, 'legacy_analyses.not_found');
    expectProblem(await del(2147483647), 404, 'legacy_analyses.not_found');
  });

  it('requires scans:read to read, admin to create and delete', async () => {
    const id = await newAnalysis(org.admin);
    const reader = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    const writer = await buildApiKey(app, org.orgId, { scopes: ['scans:write'] });
    expect((await get(id, reader.secret)).status).toBe(200);
    expect((await list('', reader.secret)).status).toBe(200);
    expectProblem(await create({ name: 'x' }, reader.secret), 403, 'auth.insufficient_scope');
    expectProblem(await del(id, reader.secret), 403, 'auth.insufficient_scope');
    expectProblem(await get(id, writer.secret), 403, 'auth.insufficient_scope');
    expectProblem(await call(app, 'GET', '/v1/legacy-analyses'), 401, 'auth.unauthenticated');
  });
});

describe('GET /v1/legacy-analyses', () => {
  it('pages newest first with a signed cursor', async () => {
    const fresh = await buildOrg(app);
    for (let i = 0; i < 5; i++) await newAnalysis(fresh.admin, `s${i}`);
    const p1 = await list('?limit=2', fresh.admin);
    expect(p1.status).toBe(200);
    expect(ids(p1)).toEqual([5, 4]);
    const p2 = await list(`?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`, fresh.admin);
    const p3 = await list(`?limit=2&cursor=${encodeURIComponent(p2.body.next_cursor)}`, fresh.admin);
    expect(ids(p2)).toEqual([3, 2]);
    expect(ids(p3)).toEqual([1]);
    expect(p3.body.next_cursor).toBeNull();
    // another organization's cursor, or an edited one, is refused
    expectProblem(
      await list(`?cursor=${encodeURIComponent(p1.body.next_cursor)}`, other.admin),
      400,
      'legacy_analyses.invalid_cursor',
    );
    expectProblem(await list('?cursor=abc.def', fresh.admin), 400, 'legacy_analyses.invalid_cursor');
    expectProblem(await list('?limit=0', fresh.admin), 400, 'request.validation_failed');
    const empty = await list('', (await buildOrg(app)).admin);
    expect(empty.body).toEqual({ data: [], next_cursor: null });
  });
});
