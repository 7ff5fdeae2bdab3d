// Audit events as CSV (Accept: text/csv): the JSON page, RFC 4180 encoded with formula guards, paged alike.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem } from '../support/harness.ts';
import {
  app,
  audit,
  FIELDS,
  NASTY_AGENT,
  NASTY_SESSION,
  nastyScan,
  org,
  useAuditApp,
  type Event,
} from './audit-fixture.ts';

useAuditApp();

/** A CSV page back into the JSON page's shape: formula guard removed, arrays split, types restored. */
function fromCsv(csv: string): { header: string[]; rows: Event[] } {
  const records = parse(csv) as string[][];
  const [header, ...body] = records;
  const unguard = (s: string) => (/^'[=+\-@\t\r]/.test(s) ? s.slice(1) : s);
  const rows = body.map((cells) => {
    const e: Record<string, unknown> = {};
    header!.forEach((f, i) => {
      const v = unguard(cells[i]!);
      if (f === 'owasp_tags' || f === 'mitre_tags') e[f] = v === '' ? [] : v.split(';');
      else if (f === 'score') e[f] = v === '' ? null : Number(v);
      else if (f === 'enforced') e[f] = v === '' ? null : v === 'true';
      else e[f] = v === '' ? null : v;
    });
    return e as Event;
  });
  return { header: header!, rows };
}

describe('CSV (Accept: text/csv)', () => {
  it('is the JSON page, RFC 4180 encoded with formula guards', async () => {
    const json = await audit('?limit=10000');
    const csv = await audit('?limit=10000', org.admin, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('vary')).toMatch(/accept/i);
    expect(csv.headers.get('next-cursor')).toBeNull();
    expect(csv.text.startsWith(`${FIELDS.join(',')}\r\n`)).toBe(true);
    expect(csv.text.endsWith('\r\n')).toBe(true);
    const { header, rows } = fromCsv(csv.text);
    expect(header).toEqual(FIELDS);
    expect(rows).toEqual(json.body.data);
    // the hostile values really went through quoting and the guard
    expect(csv.text).toContain(`,"'=HYPERLINK(""x"")",`);
    expect(csv.text).toContain(`,"a,b\r\nc ""quoted"", -1",`);
    expect(rows.find((e) => e.scan_id === nastyScan.id)).toMatchObject({
      agent_id: NASTY_AGENT,
      session_id: NASTY_SESSION,
    });
  });

  it('pages like JSON: Next-Cursor and Link point at the next page', async () => {
    const q = '?kind=detection&limit=2';
    const json = await audit(q);
    const csv = await audit(q, org.admin, { accept: 'text/csv' });
    expect(fromCsv(csv.text).rows).toEqual(json.body.data);
    const next = csv.headers.get('next-cursor')!;
    expect(next).toEqual(expect.any(String));
    const link = csv.headers.get('link')!;
    const target = /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
    expect(new URL(target, app.baseUrl).searchParams.get('cursor')).toBe(next);
    expect(new URL(target, app.baseUrl).searchParams.get('kind')).toBe('detection');
    const second = await call(app, 'GET', target, { key: org.admin, headers: { accept: 'text/csv' } });
    const secondJson = await audit(`?kind=detection&limit=2&cursor=${encodeURIComponent(json.body.next_cursor)}`);
    expect(fromCsv(second.text).rows).toEqual(secondJson.body.data);
    expect(second.headers.get('next-cursor')).toBeNull();
    expect(second.headers.get('link')).toBeNull();
  });

  it('an empty page is the header row alone', async () => {
    const csv = await audit('?agent_id=nobody', org.admin, { accept: 'text/csv' });
    expect(csv.text).toBe(`${FIELDS.join(',')}\r\n`);
  });

  it('JSON when Accept prefers it or is absent; errors stay problem+json', async () => {
    for (const accept of ['application/json', 'application/json, text/csv;q=0.5', '*/*', 'text/html']) {
      const r = await audit('?limit=1', org.admin, { accept });
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect(
      (await audit('?limit=1', org.admin, { accept: 'application/json;q=0.1, text/csv' })).headers.get('content-type'),
    ).toMatch(/^text\/csv/);
    expectProblem(await audit('?limit=0', org.admin, { accept: 'text/csv' }), 400, 'request.validation_failed');
    expectProblem(await audit('?cursor=bad', org.admin, { accept: 'text/csv' }), 400, 'audit.invalid_cursor');
  });

  it('streams a full 10,000-row page, and the rest on the next page', async () => {
    const big = await buildOrg(app, 'Big audit');
    await app.db.query(
      `INSERT INTO audit_events (id, org_id, kind, created, actor_id, resource_type, resource_id, change_summary)
       SELECT 'aud_01KJ' || lpad(g::text, 22, '0'), $1, 'management', now(), 'ak_bulk', 'api_key', 'ak_bulk', '=cmd|' || g || ', "row"'
       FROM generate_series(1, 10050) g`,
      [big.orgId],
    );
    const csv = await audit('?limit=10000&resource_id=ak_bulk', big.admin, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    const { rows } = fromCsv(csv.text);
    expect(rows).toHaveLength(10_000);
    expect(rows[0]!.change_summary).toBe('=cmd|10050, "row"');
    const rest = await audit(`?limit=10000&resource_id=ak_bulk&cursor=${csv.headers.get('next-cursor')}`, big.admin, {
      accept: 'text/csv',
    });
    expect(fromCsv(rest.text).rows.map((e) => e.change_summary)).toEqual(
      Array.from({ length: 50 }, (_, i) => `=cmd|${50 - i}, "row"`),
    );
  });
});
