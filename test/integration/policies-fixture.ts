/**
 * What the policies-*.test.ts files share: an app with two organizations (`org` acts, `other` is the
 * tenant that must see none of it), a valid policy body to vary, and the calls the tests repeat.
 * The bindings are live: `app`, `org` and `other` are set by the `beforeAll` that `usePoliciesApp` registers.
 */
import { afterAll, beforeAll } from 'vitest';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

export let app: TestApp;
export let org: TestOrg;
export let other: TestOrg;

/** Starts the app and both organizations before this file's tests; closes it after them. */
export function usePoliciesApp(): void {
  beforeAll(async () => {
    app = await startTestApp();
    org = await buildOrg(app);
    other = await buildOrg(app);
  });
  afterAll(async () => app?.close());
}

export const SSN_TEXT = 'my ssn is 536-22-1234 please file it';
export const rule = (over: Record<string, unknown> = {}) => ({
  name: 'block SSNs',
  when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] },
  then: { action: 'blocked', notify: [] },
  ...over,
});
export const body = (over: Record<string, unknown> = {}) => ({
  name: 'p',
  rules: [rule()],
  default_action: 'allowed',
  ...over,
});
export const create = (b: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/policies', { key, json: b, headers });
export const scan = (
  text: string,
  options: Record<string, unknown> = {},
  context: Record<string, unknown> = {},
  key = org.admin,
) =>
  call(app, 'POST', '/v1/scans', {
    key,
    json: {
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text },
      context,
      options: { tier: 'fast', ...options },
    },
  });
export const paths = (r: { body: { errors?: { path: string }[] } }) => (r.body.errors ?? []).map((e) => e.path);

/** Rows of `table` that belong to the organization. */
export async function count(table: string, orgId = org.orgId): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [
    orgId,
  ]);
  return rows[0]!.n;
}
