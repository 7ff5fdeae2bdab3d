/**
 * What the scans-*.test.ts files (and detectors-catalog.test.ts) share: an app with one model worker thread
 * and a 50,000-character text limit on a manual clock, an organization that scans (`org`) and one that must
 * see none of it (`other`), and the request builders. The bindings are live: `app`, `org` and `other` are set
 * by the `beforeAll` that `useScansApp` registers.
 */
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

export const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export let app: TestApp;
export let org: TestOrg;
export let other: TestOrg;
export const clock = new ManualClock('2026-03-01T12:00:00.000Z');

/** Starts the app and both organizations before this file's tests; closes it after them. */
export function useScansApp(): void {
  beforeAll(async () => {
    app = await startTestApp({ clock, env: { WORKER_THREADS: '1', SCAN_MAX_TEXT_CHARS: '50000' } });
    org = await buildOrg(app, 'Scanner');
    other = await buildOrg(app, 'Other');
  });
  afterAll(async () => app?.close());
}

export const scan = (json: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/scans', { key, json, headers });
export const text = (t: string, extra: Record<string, unknown> = {}) => ({
  kind: 'content',
  surface: 'user_message',
  content: { type: 'text', text: t },
  ...extra,
});
