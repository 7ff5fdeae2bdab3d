/**
 * What the api-keys-*.test.ts files share: an app on a manual clock with the key cache off (so a
 * revoked or expired key is refused on its next request), an organization, and the create call.
 * The bindings are live: `app` and `org` are set by the `beforeAll` that `useApiKeysApp` registers.
 */
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

export const DAY = 86_400_000;
export let app: TestApp;
export let org: TestOrg;
/** The app's clock: tests move it past a key's expiry. */
export const clock = new ManualClock(new Date());

/** Starts the app and the organization before this file's tests; closes it after them. */
export function useApiKeysApp(): void {
  beforeAll(async () => {
    app = await startTestApp({ clock, env: { AUTH_CACHE_TTL_MS: '0' } });
    org = await buildOrg(app);
  });
  afterAll(async () => app?.close());
}

/** POST /v1/api-keys as `key` (the organization's admin by default). */
export const create = (body: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/api-keys', { key, json: body, headers });
