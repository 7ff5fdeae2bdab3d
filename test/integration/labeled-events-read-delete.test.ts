// Labeled events: list (filters, order, paging, signed cursors), get, delete (audit row), 404s,
// tenancy and the three scopes.
import { describe, expect, it } from 'vitest';
import { buildApiKey, buildOrg, call, expectProblem, type TestOrg } from '../support/harness.ts';
import { app, append, ev, insertRun, org, PATH, redteamEv, useLabeledEventsApp } from './labeled-events-fixture.ts';

useLabeledEventsApp();

const list = (o: TestOrg, qs = '') => call(app, 'GET', `${PATH}${qs ? `?${qs}` : ''}`, { key: o.admin });
const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();
const ids = (body: { data: { event_id: string }[] }) => body.data.map((e) => e.event_id);

describe('list', () => {
  it('orders by observed_at then id, descending, pages with a signed cursor, omits source_data', async () => {
    const o = await buildOrg(app);
    // two events share an observation instant: the id breaks the tie
    const r = await append(
      {
        events: [
          ev({ observed_at: at(5) }),
          ev({ observed_at: at(1) }),
          ev({ observed_at: at(5) }),
          ev({ observed_at: at(3) }),
        ],
      },
      o.admin,
    );
    const [a, b, c, d] = r.body.event_ids as string[];
    const expected = [c, a, d, b];
    const all = await list(o);
    expect(ids(all.body)).toEqual(expected);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data[0]).not.toHaveProperty('source_data');
    expect(all.body.data[0]).toHaveProperty('input_redacted');

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p = await list(o, `limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(p.status).toBe(200);
      seen.push(...ids(p.body));
      cursor = p.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(expected);

    const first = await list(o, 'limit=2');
    const cur: string = first.body.next_cursor;
    const tampered = `${cur.slice(0, 3)}${cur[3] === 'A' ? 'B' : 'A'}${cur.slice(4)}`;
    for (const bad of [tampered, 'garbage']) {
      expectProblem(await list(o, `cursor=${encodeURIComponent(bad)}`), 400, 'labeled_events.invalid_cursor');
    }
    // another organization's cursor is just as invalid
    expectProblem(await list(org, `cursor=${encodeURIComponent(cur)}`), 400, 'labeled_events.invalid_cursor');
  });

  it('filters by source, severity, training_consent, the observation window and run_id', async () => {
    const o = await buildOrg(app);
    const run = await insertRun(o.orgId, true);
    const r = await append(
      {
        events: [
          ev({ source: 'feedback', severity: 'high', observed_at: at(1) }),
          ev({ source: 'reviewed', severity: 'low', observed_at: at(2), training_consent: true }),
          ev({ source: 'production_sample', severity: 'high', observed_at: at(3) }),
          redteamEv(run, { severity: 'critical', observed_at: at(4) }),
        ],
      },
      o.admin,
    );
    const [fb, rv, ps, rt] = r.body.event_ids as string[];
    const q = async (qs: string) => {
      const p = await list(o, qs);
      expect(p.status, p.text.slice(0, 300)).toBe(200);
      return ids(p.body);
    };
    expect(await q('source=reviewed')).toEqual([rv]);
    expect(await q('severity=high')).toEqual([ps, fb]);
    expect(await q('training_consent=true')).toEqual([rt, rv]);
    expect(await q('training_consent=false')).toEqual([ps, fb]);
    expect(await q(`observed_after=${at(2)}&observed_before=${at(4)}`)).toEqual([ps, rv]);
    expect(await q(`observed_after=${at(4)}`)).toEqual([rt]);
    expect(await q(`observed_before=${at(2)}`)).toEqual([fb]);
    expect(await q(`run_id=${run}`)).toEqual([rt]);
    expect(await q(`run_id=${run}&source=feedback`)).toEqual([]);
    expect(await q('source=feedback&severity=high&limit=200')).toEqual([fb]);
  });

  it.each([
    ['source=scraped', 'query.source'],
    ['severity=urgent', 'query.severity'],
    ['training_consent=yes', 'query.training_consent'],
    ['observed_after=yesterday', 'query.observed_after'],
    [`observed_after=${at(3)}&observed_before=${at(3)}`, 'query.observed_before'],
    [`observed_after=${at(4)}&observed_before=${at(3)}`, 'query.observed_before'],
    ['run_id=run-1', 'query.run_id'],
    ['limit=0', 'query.limit'],
    ['limit=201', 'query.limit'],
    ['colour=red', 'query'],
  ])('rejects %s', async (qs, path) => {
    const r = await list(org, qs);
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('get and delete', () => {
  it('deletes for good with a management audit row; a second delete and a get are 404', async () => {
    const o = await buildOrg(app);
    const [id] = (await append({ events: [ev()] }, o.admin)).body.event_ids as string[];
    const del = await call(app, 'DELETE', `${PATH}/${id}`, { key: o.admin });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectProblem(await call(app, 'GET', `${PATH}/${id}`, { key: o.admin }), 404, 'labeled_events.not_found');
    expectProblem(await call(app, 'DELETE', `${PATH}/${id}`, { key: o.admin }), 404, 'labeled_events.not_found');
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM labeled_events WHERE id = $1', [id]);
    expect(rows[0].n).toBe(0);
    const audit = await call(app, 'GET', `/v1/audit-events?resource_type=labeled_event&resource_id=${id}`, {
      key: o.admin,
    });
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ kind: 'management', resource_type: 'labeled_event', resource_id: id });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const unknown = 'lev_01JZ0000000000000000000000';
    expectProblem(await call(app, 'GET', `${PATH}/${unknown}`, { key: org.admin }), 404, 'labeled_events.not_found');
    expectProblem(await call(app, 'DELETE', `${PATH}/${unknown}`, { key: org.admin }), 404, 'labeled_events.not_found');
    expectProblem(
      await call(app, 'GET', `${PATH}/rtr_01JZ0000000000000000000000`, { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });

  it("keeps each organization's events to itself", async () => {
    const a = await buildOrg(app);
    const b = await buildOrg(app);
    const [id] = (await append({ events: [ev()] }, a.admin)).body.event_ids as string[];
    expectProblem(await call(app, 'GET', `${PATH}/${id}`, { key: b.admin }), 404, 'labeled_events.not_found');
    expectProblem(await call(app, 'DELETE', `${PATH}/${id}`, { key: b.admin }), 404, 'labeled_events.not_found');
    expect(ids((await list(b)).body)).toEqual([]);
    expect(ids((await list(a)).body)).toEqual([id]);
    expect((await call(app, 'GET', `${PATH}/${id}`, { key: a.admin })).status).toBe(200);
  });
});

describe('scopes', () => {
  it('needs labeled_events:write to append, :read to list and get, :delete to delete', async () => {
    const o = await buildOrg(app);
    const key = async (scope: string) => (await buildApiKey(app, o.orgId, { scopes: [scope as never] })).secret;
    const [write, read, del, other] = await Promise.all(
      ['labeled_events:write', 'labeled_events:read', 'labeled_events:delete', 'scans:read'].map(key),
    );
    const [id] = (await append({ events: [ev()] }, write!)).body.event_ids as string[];
    expect(id).toBeDefined();
    const denied = async (method: string, path: string, k: string, scope: string, json?: unknown) => {
      const r = await call(app, method, path, { key: k, json });
      expectProblem(r, 403, 'auth.insufficient_scope');
      expect(r.body.required_scope).toBe(scope);
    };
    for (const k of [read!, del!, other!]) await denied('POST', PATH, k, 'labeled_events:write', { events: [ev()] });
    for (const k of [write!, del!, other!]) {
      await denied('GET', PATH, k, 'labeled_events:read');
      await denied('GET', `${PATH}/${id}`, k, 'labeled_events:read');
    }
    for (const k of [write!, read!, other!]) await denied('DELETE', `${PATH}/${id}`, k, 'labeled_events:delete');
    expect((await call(app, 'GET', PATH, { key: read! })).status).toBe(200);
    expect((await call(app, 'GET', `${PATH}/${id}`, { key: read! })).status).toBe(200);
    expect((await call(app, 'DELETE', `${PATH}/${id}`, { key: del! })).status).toBe(204);
    expectProblem(await call(app, 'GET', PATH), 401, 'auth.unauthenticated');
  });
});
