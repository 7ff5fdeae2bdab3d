import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLSET_SCHEMA_MAX_DEPTH } from '../../engine/content.ts';
import { buildOrg, call, expectProblem, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

/** A toolset scan whose input schema's innermost object (holding an SSN) is `levels` below the schema itself. */
function toolsetScan(levels: number, capture: boolean): string {
  const nested = '{"a":'.repeat(levels) + '"my ssn is 536-22-1234"' + '}'.repeat(levels);
  return JSON.stringify({
    kind: 'toolset',
    surface: 'mcp_tool_description',
    content: { type: 'toolset', tools: [{ server: 'srv', name: 'read', input_schema: { x: 0 } }] },
    options: { capture, tier: 'fast' },
  }).replace('{"x":0}', `{"p":${nested}}`);
}

describe('toolset input schemas nest at most as deep as the scan reads', () => {
  it(`${TOOLSET_SCHEMA_MAX_DEPTH} levels are scanned (the deepest string is read) and stored`, async () => {
    const r = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      raw: toolsetScan(TOOLSET_SCHEMA_MAX_DEPTH, true),
    });
    expect(r.status, r.text).toBe(201);
    expect(JSON.stringify(r.body.findings)).toContain('536-22-1234');
  });

  // Found by test/reliability/fuzz.test.ts: 5,000+ levels with capture overflowed the stack in the
  // scan writer's JSON.stringify — a 500, failing every scan of the same group-commit batch.
  it.each([TOOLSET_SCHEMA_MAX_DEPTH + 1, 10_000])(
    '%i levels → 400 naming the schema, nothing stored',
    async (levels) => {
      const before = (await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId])).rows[0]
        .n;
      for (const capture of [false, true]) {
        const r = await call(app, 'POST', '/v1/scans', { key: org.admin, raw: toolsetScan(levels, capture) });
        expectProblem(r, 400, 'request.validation_failed');
        expect(r.body.errors).toEqual([
          {
            path: 'content.tools.0.input_schema',
            message: expect.stringContaining(`deeper than ${TOOLSET_SCHEMA_MAX_DEPTH} levels`),
          },
        ]);
      }
      expect(
        (await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId])).rows[0].n,
      ).toBe(before);
    },
  );
});
