/**
 * The master secret against the database (store/secret-check.ts through server/runtime.ts): the first start
 * records the secret's fingerprint, a start with another secret is refused before anything runs, and
 * ACCEPT_NEW_SECRET_KEY adopts a new one (the old one is then refused in its turn).
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../lib/logger.ts';
import { openRuntime } from '../../server/runtime.ts';
import { SecretMismatchError } from '../../store/secret-check.ts';
import { isolatedDatabase } from '../support/harness.ts';

const OLD = 'secret-check-old-0123456789abcdef0123';
const NEW = 'secret-check-new-0123456789abcdef0123';

/** Opens and closes a runtime on `url` with this secret; rejects as openRuntime does. */
async function start(url: string, secret: string, acceptNew = false): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: url,
    SECRET_KEY: secret,
    ...(acceptNew ? { ACCEPT_NEW_SECRET_KEY: 'true' } : {}),
  });
  const rt = await openRuntime(config, createLogger('silent'));
  await rt.close();
}

async function recorded(url: string): Promise<string[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<{ fingerprint: string }>('SELECT fingerprint FROM secret_check')).rows.map(
      (r) => r.fingerprint,
    );
  } finally {
    await client.end();
  }
}

it('records the first secret, refuses another, and adopts a new one only when told to', async () => {
  const url = await isolatedDatabase();
  expect(await recorded(url)).toEqual([]);

  await start(url, OLD);
  const [first] = await recorded(url);
  expect(first).toMatch(/^[0-9a-f]{32}$/);
  await start(url, OLD); // the same secret again: matched
  expect(await recorded(url)).toEqual([first]);

  await expect(start(url, NEW)).rejects.toBeInstanceOf(SecretMismatchError);
  await expect(start(url, NEW)).rejects.toThrow(/ACCEPT_NEW_SECRET_KEY=true/);
  expect(await recorded(url), 'a refused start changes nothing').toEqual([first]);

  await start(url, NEW, true);
  const [adopted] = await recorded(url);
  expect(adopted).not.toBe(first);
  await expect(start(url, OLD), 'once replaced, the old secret is the stranger').rejects.toBeInstanceOf(
    SecretMismatchError,
  );
  await start(url, NEW);
});
