import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { buildOrg, call, isolatedDatabase, startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';
import { until } from './load.ts';
import { budgetMs, cases } from './profile.ts';

/**
 * Webhooks deleted while the pump delivers to them, under another organization's load (issue 36,
 * item 6): each round creates 3 webhooks, sends 30 scans (90 deliveries) and deletes all 3 at once,
 * while a loader organization's scans keep the pump's batches full of its outcomes. A delete took the
 * webhook's lock, then its deliveries'; the pump's batch took deliveries', then webhooks': PostgreSQL
 * aborted one of them, and when it was the pump the whole batch — the loader's outcomes in it — was
 * lost to the leases, re-sent later, its failure streaks never counted.
 *
 * Checked: no deadlock (PostgreSQL's own count for the database, read after every connection closed),
 * no batch rewritten or lost (the pump's log), every delete 204 and every scan 201; the deleted
 * webhooks leave no delivery; every loader attempt is recorded once: each event reached its receiver
 * as many times as its row counts attempts, and the always-failing webhook's streak counts every
 * failure the receiver answered.
 */

const ROUNDS = cases(3, 30);
const ROUND_SCANS = 30;
const ALL_SCAN_EVENTS = ['scan.allowed', 'scan.warned', 'scan.flagged', 'scan.blocked'];

let app: TestApp | null = null;
let receiver: Receiver | null = null;
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

it(
  'deleting webhooks while the pump records outcomes under load: no deadlock, no batch lost',
  { timeout: budgetMs(90_000, 600_000) },
  async () => {
    const rx = (receiver = await startReceiver((r) => ({ status: r.path === '/fail' ? 500 : 200 })));
    const databaseUrl = await isolatedDatabase();
    const logLines: string[] = [];
    const noDns = async (host: string): Promise<never> => Promise.reject(new Error(`ENOTFOUND ${host}`));
    const a = (app = await startTestApp({
      logLines,
      env: {
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
        WEBHOOK_CA_FILE: TEST_CA_FILE,
        WEBHOOK_TIMEOUT_MS: '5000',
        WEBHOOK_POLL_MS: '200',
      },
      webhookDns: { register: noDns, deliver: noDns },
    }));
    const createHook = async (key: string, path: string): Promise<string> => {
      const r = await call(a, 'POST', '/v1/webhooks', {
        key,
        json: { url: rx.url.replace('/hook', path), events: ALL_SCAN_EVENTS },
      });
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    const scanAs = async (key: string, text: string): Promise<number> =>
      (
        await fetch(`${a.baseUrl}/v1/scans`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            kind: 'content',
            surface: 'user_message',
            content: { type: 'text', text },
            options: { tier: 'fast' },
          }),
        })
      ).status;

    // The loader: two webhooks (one always answered 500, so its streak moves with every outcome) and
    // two clients scanning without pause until the rounds are done.
    const loader = await buildOrg(a);
    const ok = await createHook(loader.admin, '/ok');
    const fail = await createHook(loader.admin, '/fail');
    let loading = true;
    const loaderStatuses: number[] = [];
    const load = Promise.all(
      [0, 1].map(async (w) => {
        for (let i = 0; loading; i++) loaderStatuses.push(await scanAs(loader.admin, `loader ${w} scan ${i}`));
      }),
    );

    const rounds = await buildOrg(a);
    const deleteStatuses: number[] = [];
    const roundStatuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const hooks = await Promise.all([0, 1, 2].map(() => createHook(rounds.admin, '/round')));
      for (let i = 0; i < ROUND_SCANS; i += 6)
        roundStatuses.push(
          ...(await Promise.all(
            Array.from({ length: 6 }, (_, j) => scanAs(rounds.admin, `round ${round} scan ${i + j}`)),
          )),
        );
      // The 90 deliveries are being sent and recorded now: delete all three at once.
      const deleted = await Promise.all(
        hooks.map((id) => call(a, 'DELETE', `/v1/webhooks/${id}`, { key: rounds.admin })),
      );
      deleteStatuses.push(...deleted.map((r) => r.status));
    }
    loading = false;
    await load;
    // Everything claimed is sent and recorded; then nothing more is sent (the failing webhook's retries).
    const pump = a.built.services.webhookPump!;
    await pump.settle();
    await pump.stop();

    const count = async (sql: string, args: unknown[]) => (await a.db.query<{ n: number }>(sql, args)).rows[0]!.n;
    const orphans = await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1', [rounds.orgId]);

    // Every loader attempt recorded exactly once.
    const { rows } = await a.db.query<{ event_id: string; webhook_id: string; status: string; attempt: number }>(
      'SELECT event_id, webhook_id, status, attempt FROM webhook_deliveries WHERE org_id = $1',
      [loader.orgId],
    );
    const receipts = new Map<string, number>();
    for (const r of rx.received) {
      const key = `${r.path} ${String(r.headers['service-event-id'])}`;
      receipts.set(key, (receipts.get(key) ?? 0) + 1);
    }
    const mismatched = rows
      .map((d) => {
        const path = d.webhook_id === ok ? '/ok' : '/fail';
        const seen = receipts.get(`${path} ${d.event_id}`) ?? 0;
        const recorded = d.status === 'pending' ? 0 : d.attempt;
        const expected = path === '/ok' ? 'succeeded' : 'failed';
        return seen === recorded && d.status === expected ? null : { ...d, path, seen };
      })
      .filter(Boolean);
    const failures = rx.received.filter((r) => r.path === '/fail').length;
    const streak = await count('SELECT consecutive_failures AS n FROM webhooks WHERE org_id = $1 AND id = $2', [
      loader.orgId,
      fail,
    ]);

    const rewritten = logLines.filter((l) => l.includes('writing the batch again')).length;
    const lost = logLines.filter((l) => l.includes('recording webhook attempts failed')).length;
    await a.close();
    app = null;
    const deadlocks = await deadlocksOf(databaseUrl);
    const refusedDeletes = deleteStatuses.filter((s) => s !== 204);
    console.info(
      `webhooks-delete-load: ${ROUNDS} rounds × (3 webhooks, ${ROUND_SCANS} scans, 3 deletes) beside ${loaderStatuses.length} loader scans; ` +
        `${rows.length} loader deliveries, ${rx.received.length} requests at the receiver (${failures} answered 500, the failing webhook's streak ${streak}); ` +
        `PostgreSQL deadlocks ${deadlocks}, deletes not 204 ${refusedDeletes.length}, batches written again ${rewritten}, batches lost ${lost}, ` +
        `loader deliveries whose attempts and receipts disagree ${mismatched.length}`,
    );
    expect(refusedDeletes).toEqual([]);
    expect([...roundStatuses, ...loaderStatuses].filter((s) => s !== 201)).toEqual([]);
    expect(orphans, 'deliveries of deleted webhooks left').toBe(0);
    expect(mismatched, 'loader deliveries whose attempts and receipts disagree').toEqual([]);
    expect(streak, 'the failing webhook counts every failure').toBe(failures);
    expect({ deadlocks, rewritten, lost }).toEqual({ deadlocks: 0, rewritten: 0, lost: 0 });
  },
);

/**
 * PostgreSQL's count of deadlocks in the database. A backend reports its statistics when it goes idle
 * or exits, so this waits until the app's connections have closed.
 */
async function deadlocksOf(databaseUrl: string): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await until(
      async () =>
        (
          await c.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
          )
        ).rows[0]!.n === 0,
      10_000,
    );
    const { rows } = await c.query<{ n: number }>(
      'SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return rows[0]!.n;
  } finally {
    await c.end();
  }
}
