/**
 * The pump's batch of outcomes against a webhook's delete, interleaved statement by statement on the
 * real database: a second connection plays the delete (its statements, in its order), and row locks
 * held by further connections stop the pump exactly where the two used to cross. The delete locks the
 * webhook, then its deliveries; the pump used to update the deliveries, then the webhooks — a
 * deadlock whose victim, the pump, lost its whole batch (other organizations' outcomes included).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import * as store from '../../store/webhooks.ts';
import {
  app,
  createHook,
  deliveries,
  org,
  other,
  pump,
  receiver,
  scan,
  SSN_TEXT,
  useWebhooksApp,
} from './webhooks-fixture.ts';

useWebhooksApp();

/** Connections of the test's own, outside the app's pool; rolled back and closed after each test. */
const clients: pg.Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.query('ROLLBACK').catch(() => undefined);
    await c.end();
  }
});
async function connection(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: app.config.DATABASE_URL! });
  await c.connect();
  clients.push(c);
  return c;
}

/** The receiver holds each request until `release(path)` answers it 200. */
function holdRequests(): (path: string) => void {
  const held = new Map<string, () => void>();
  const waiting = new Map<string, Promise<void>>();
  const gate = (path: string) => {
    if (!waiting.has(path)) waiting.set(path, new Promise<void>((resolve) => held.set(path, resolve)));
    return waiting.get(path)!;
  };
  receiver.respond = async (r) => {
    await gate(r.path);
    return { status: 200 };
  };
  return (path) => {
    void gate(path);
    held.get(path)!();
  };
}

/** How many of the app's backends wait for a row lock (the pump's transaction, in these tests). */
async function lockWaiters(): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0]!.n;
}

/** Attempts the pump has made (counted before their outcome is queued for recording). */
async function attemptsMade(): Promise<number> {
  const { values } = await app.built.services.metrics.webhookAttempts.get();
  return values.reduce((n, v) => n + v.value, 0);
}

async function hookAt(o: typeof org, path: string): Promise<string> {
  const r = await createHook(o, { url: receiver.url.replace('/hook', path), events: ['scan.blocked'] });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function deliveryOf(o: typeof org, hookId: string) {
  const { rows } = await app.db.query<{ id: string; status: string; attempt: number }>(
    'SELECT id, status, attempt FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2',
    [o.orgId, hookId],
  );
  return rows;
}

describe('a webhook deleted while the pump records outcomes', () => {
  it('does not deadlock: the batch it shared with another organization is recorded', async () => {
    const release = holdRequests();
    const w = await hookAt(org, '/w');
    const x = await hookAt(other, '/x');
    const y = await hookAt(other, '/y');
    await scan(other, SSN_TEXT);
    await scan(org, SSN_TEXT);
    await receiver.waitFor(3);
    const before = await attemptsMade();

    // 1. Y's outcome is recorded first, and waits on a lock of Y: the next batch gathers meanwhile.
    const holdY = await connection();
    await holdY.query('BEGIN');
    await holdY.query('SELECT 1 FROM webhooks WHERE org_id = $1 AND id = $2 FOR SHARE', [other.orgId, y]);
    release('/y');
    await expect.poll(lockWaiters).toBe(1);

    // 2. The delete of W begins: its first statement locks the webhook row.
    const del = await connection();
    await del.query('BEGIN');
    // The pump, not the delete, is the one a deadlock check would abort.
    await del.query(`SET LOCAL deadlock_timeout = '10min'`);
    expect(await store.getWebhook(del, org.orgId, w, true)).not.toBeNull();

    // 3. W's and X's outcomes (two organizations) make one batch, recorded once Y's is.
    release('/w');
    release('/x');
    await expect.poll(attemptsMade).toBe(before + 3);
    await holdY.query('COMMIT');
    await expect.poll(async () => (await deliveryOf(other, y))[0]?.status).toBe('succeeded');
    // The batch now waits for W, which the delete holds.
    await expect.poll(lockWaiters).toBe(1);

    // 4. The delete goes on to W's deliveries, and commits.
    expect(await store.deleteWebhook(del, org.orgId, w)).toBe(true);
    await del.query('COMMIT');

    await pump().settle();
    expect(await deliveryOf(org, w)).toEqual([]);
    expect(await deliveryOf(other, x)).toEqual([expect.objectContaining({ status: 'succeeded', attempt: 1 })]);
    expect((await deliveries(other, x)).body.data).toHaveLength(1);
    expect(receiver.received.filter((r) => r.path === '/x')).toHaveLength(1);
  });
});

describe('a batch of outcomes that loses a deadlock', () => {
  it('is written again as a unit, and every outcome in it is recorded', async () => {
    const release = holdRequests();
    const w = await hookAt(org, '/retried');
    await scan(org, SSN_TEXT);
    await receiver.waitFor(1);
    const [d] = await deliveryOf(org, w);

    // Another transaction holds the delivery, then asks for the webhook the batch locked first.
    const rival = await connection();
    await rival.query('BEGIN');
    await rival.query(`SET LOCAL deadlock_timeout = '10min'`);
    await rival.query('SELECT 1 FROM webhook_deliveries WHERE org_id = $1 AND id = $2 FOR UPDATE', [org.orgId, d!.id]);
    release('/retried');
    await expect.poll(lockWaiters).toBe(1);
    // Returns once the pump's transaction, the deadlock's victim, has rolled back.
    await rival.query('SELECT 1 FROM webhooks WHERE org_id = $1 AND id = $2 FOR UPDATE', [org.orgId, w]);
    await rival.query('ROLLBACK');

    await pump().settle();
    expect(await deliveryOf(org, w)).toEqual([expect.objectContaining({ status: 'succeeded', attempt: 1 })]);
    expect(receiver.received).toHaveLength(1);
  });
});
