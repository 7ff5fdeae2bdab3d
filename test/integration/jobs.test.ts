import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMetrics, type Metrics } from '../../lib/metrics.ts';
import * as cleanupIdempotencyKeys from '../../jobs/cleanup-idempotency-keys.ts';
import * as expireScanContent from '../../jobs/expire-scan-content.ts';
import * as pruneWebhookDeliveries from '../../jobs/prune-webhook-deliveries.ts';
import type { JobModule } from '../../jobs/job.ts';
import { JobFailedError, startJobs, type Jobs, type JobsOptions } from '../../jobs/scheduler.ts';
import { ManualClock } from '../../lib/clock.ts';
import { createLogger } from '../../lib/logger.ts';
import { createPool, type Db } from '../../store/db.ts';
import { buildOrg, call, startTestApp, testPooler, type TestApp, type TestOrg } from '../support/harness.ts';

const DAY = 86_400_000;
// Years before any other test file's clock: the system jobs here cross organizations, so nothing
// another file stores (at its own clock) can be past its expiry at this one.
const clock = new ManualClock('2020-01-01T00:00:00.000Z');
let app: TestApp;
let org: TestOrg;
let metrics: Metrics;

beforeAll(async () => {
  app = await startTestApp({ clock, jobs: true, env: { METRICS_ENABLED: 'true', RETENTION_BATCH_SIZE: '2' } });
  org = await buildOrg(app, 'Jobs');
  metrics = app.built.services.metrics;
});
afterAll(async () => app?.close());

const counter = async (
  m: { get(): Promise<{ values: { value: number; labels: Record<string, unknown> }[] }> },
  labels: Record<string, string> = {},
) =>
  (await m.get()).values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((n, v) => n + v.value, 0);

const captured = async (text: string) => {
  const r = await call(app, 'POST', '/v1/scans', {
    key: org.admin,
    json: { kind: 'content', surface: 'user_message', content: { type: 'text', text }, options: { capture: true } },
  });
  expect(r.status).toBe(201);
  return r.body.id as string;
};
const row = async (id: string) =>
  (
    await app.db.query('SELECT content, content_stored, content_expires_at FROM scans WHERE org_id = $1 AND id = $2', [
      org.orgId,
      id,
    ])
  ).rows[0];
const getScan = (id: string) => call(app, 'GET', `/v1/scans/${id}`, { key: org.admin });

// Other schedulers on the same database stand for other processes of one deployment.
const opened: { jobs: Jobs; pool: Db }[] = [];
async function scheduler(options: JobsOptions = {}, m: Metrics = createMetrics(false)): Promise<Jobs> {
  const pool = createPool(inject('databaseUrl'), 3, () => undefined, { pooler: testPooler() });
  const jobs = await startJobs(
    { db: pool, clock, logger: createLogger('silent'), metrics: m, config: app.config },
    { processEvery: 200, ...options },
  );
  opened.push({ jobs, pool });
  return jobs;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map(async ({ jobs, pool }) => (await jobs.stop(), await pool.end())));
});

const rowsNamed = async (name: string) =>
  (await app.db.query('SELECT type FROM agenda_jobs WHERE name = $1', [name])).rows as { type: string }[];

describe('expire-scan-content', () => {
  it('clears content past the retention window, keeps the rest, and counts it', async () => {
    const old = [await captured('old one'), await captured('old two'), await captured('old three')];
    const uncaptured = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: { kind: 'content', surface: 'user_message', content: { type: 'text', text: 'not kept' } },
    });
    clock.advance(20 * DAY);
    const fresh = await captured('fresh');
    clock.advance(11 * DAY); // old ones: 31 days; fresh: 11 days
    const before = await counter(metrics.scanContentExpired);

    await app.jobs!.runNow(expireScanContent.name);

    for (const id of old) {
      const r = await row(id);
      expect(r.content).toBeNull();
      expect(r.content_stored).toBe(true);
      expect(r.content_expires_at).not.toBeNull();
      const got = await getScan(id);
      expect(got.status).toBe(200);
      expect(got.body.content_stored).toBe(true);
      expect(got.body).not.toHaveProperty('content');
    }
    expect((await row(fresh)).content).toEqual({ type: 'text', text: 'fresh' });
    expect((await getScan(fresh)).body.content).toEqual({ type: 'text', text: 'fresh' });
    expect(await row(uncaptured.body.id)).toEqual({ content: null, content_stored: false, content_expires_at: null });
    expect((await counter(metrics.scanContentExpired)) - before).toBe(3);
    expect(await counter(metrics.jobRuns, { job: expireScanContent.name, outcome: 'success' })).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('masks the text its findings quote, as an uncaptured scan stores it from the start', async () => {
    const text = 'My SSN is 536-22-7788 and my card 4111 1111 1111 1111, mail jane.roe@example.com';
    const kept = await captured(text);
    const uncaptured = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: { kind: 'content', surface: 'user_message', content: { type: 'text', text } },
    });
    // the PII items (a detector that warns on the whole text quotes it whole, masked the same way)
    const texts = (body: { findings: { detector: string; items: { text: string }[] }[] }) =>
      body.findings.filter((f) => f.detector === 'pii').flatMap((f) => f.items.map((i) => i.text));
    expect(texts((await getScan(kept)).body)).toEqual(['536-22-7788', '4111 1111 1111 1111', 'jane.roe@example.com']);
    // past its retention without moving the clock the later tests count by
    await app.db.query('UPDATE scans SET content_expires_at = $3 WHERE org_id = $1 AND id = $2', [
      org.orgId,
      kept,
      new Date(clock.now().getTime() - DAY),
    ]);

    await app.jobs!.runNow(expireScanContent.name);

    const got = await getScan(kept);
    expect(texts(got.body)).toEqual(['[US_SSN]', '[CREDIT_CARD]', '[EMAIL_ADDRESS]']);
    expect(got.body.findings).toEqual((await getScan(uncaptured.body.id)).body.findings);
    const { rows } = await app.db.query('SELECT findings::text AS f FROM scans WHERE org_id = $1 AND id = $2', [
      org.orgId,
      kept,
    ]);
    expect(rows[0].f).not.toMatch(/536-22-7788|4111 1111|jane\.roe/);
  });

  it('loops over batches until none are left (RETENTION_BATCH_SIZE=2, 5 rows)', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await captured(`batch ${i}`));
    const other = await buildOrg(app, 'Jobs other');
    const elsewhere = await call(app, 'POST', '/v1/scans', {
      key: other.admin,
      json: {
        kind: 'content',
        surface: 'user_message',
        content: { type: 'text', text: 'later' },
        options: { capture: true },
      },
    });
    clock.advance(31 * DAY);
    const later = await call(app, 'POST', '/v1/scans', {
      key: other.admin,
      json: {
        kind: 'content',
        surface: 'user_message',
        content: { type: 'text', text: 'still in window' },
        options: { capture: true },
      },
    });
    const before = await counter(metrics.scanContentExpired);

    await app.jobs!.runNow(expireScanContent.name);

    for (const id of ids) expect((await row(id)).content).toBeNull();
    const { rows } = await app.db.query('SELECT id, content FROM scans WHERE org_id = $1 ORDER BY id', [other.orgId]);
    expect(rows).toEqual([
      { id: elsewhere.body.id, content: null },
      { id: later.body.id, content: { type: 'text', text: 'still in window' } },
    ]);
    // the five, `elsewhere`, and the first test's `fresh` (now past its window too)
    expect((await counter(metrics.scanContentExpired)) - before).toBe(7);
  });

  it('the expiry query walks scans_content_expiry_idx', async () => {
    const c = await app.db.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off'); // a tiny test table; ask which index the planner can use
      const { rows } = await c.query(
        'EXPLAIN SELECT org_id, id FROM scans WHERE content IS NOT NULL AND content_expires_at <= now() LIMIT 5000',
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('scans_content_expiry_idx');
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });
});

describe('cleanup-idempotency-keys', () => {
  it('deletes records past 24 h through the scheduler and counts them', async () => {
    const create = (key: string) =>
      call(app, 'POST', '/v1/api-keys', {
        key: org.admin,
        json: { name: key, scopes: ['scans:read'] },
        headers: { 'idempotency-key': key },
      });
    expect((await create('jobs-old-1')).status).toBe(201);
    expect((await create('jobs-old-2')).status).toBe(201);
    clock.advance(20 * 3_600_000);
    expect((await create('jobs-new')).status).toBe(201);
    clock.advance(5 * 3_600_000); // old: 25 h, new: 5 h
    const before = await counter(metrics.idempotencyKeysExpired);

    await app.jobs!.runNow(cleanupIdempotencyKeys.name);

    const { rows } = await app.db.query('SELECT key FROM idempotency_keys WHERE org_id = $1 ORDER BY key', [org.orgId]);
    expect(rows.map((r) => r.key)).toEqual(['jobs-new']);
    expect((await counter(metrics.idempotencyKeysExpired)) - before).toBe(2);
  });
});

describe('prune-webhook-deliveries', () => {
  it('deletes finished deliveries past the retention window in batches, and keeps retrying and recent ones', async () => {
    const now = clock.now().getTime();
    const at = (days: number) => new Date(now - days * DAY);
    const rows: [string, string, Date][] = [
      ['succeeded', 'old-ok-1', at(31)],
      ['succeeded', 'old-ok-2', at(40)],
      ['dead_lettered', 'old-dead', at(35)],
      ['failed', 'old-retrying', at(45)],
      ['pending', 'old-pending', at(45)],
      ['succeeded', 'recent-ok', at(29)],
    ];
    for (const [status, id, created] of rows) {
      // Due far in the future: no pump on this shared database may pick the unfinished ones up.
      await app.db.query(
        `INSERT INTO webhook_deliveries (org_id, id, webhook_id, event_id, event_type, event_created, status, attempt, next_attempt_at, created_at)
         VALUES ($1, $2, 'wh_X', 'evt_X', 'scan.blocked', $3, $4, 1, '9999-01-01', $3)`,
        [org.orgId, `whd_${id}`, created, status],
      );
    }
    const before = await counter(metrics.webhookDeliveriesPruned);
    await app.jobs!.runNow(pruneWebhookDeliveries.name);
    const left = await app.db.query('SELECT id FROM webhook_deliveries WHERE org_id = $1 ORDER BY id', [org.orgId]);
    expect(left.rows.map((r) => r.id)).toEqual(['whd_old-pending', 'whd_old-retrying', 'whd_recent-ok']);
    expect((await counter(metrics.webhookDeliveriesPruned)) - before).toBe(3);
    await app.db.query('DELETE FROM webhook_deliveries WHERE org_id = $1', [org.orgId]);
  });
});

describe('the scheduler', () => {
  it('registration is idempotent: restarts and several schedulers leave one row per job', async () => {
    await scheduler();
    await Promise.all([scheduler(), scheduler()]);
    for (const job of [expireScanContent, cleanupIdempotencyKeys])
      expect(await rowsNamed(job.name)).toEqual([{ type: 'single' }]);
  });

  it('two schedulers on one database: a due job runs once, and runNow runs once', async () => {
    const runs: string[] = [];
    const job: JobModule = {
      name: `test-once-${randomBytes(3).toString('hex')}`,
      every: '1 hour',
      run: async (ctx) => void runs.push(ctx.clock.now().toISOString()),
    };
    const [a] = await Promise.all([scheduler({ jobs: [job] }), scheduler({ jobs: [job] })]);
    await expect.poll(() => runs.length, { timeout: 5_000, interval: 20 }).toBe(1);
    await new Promise((r) => setTimeout(r, 1_500)); // several polls of both schedulers
    expect(runs).toHaveLength(1);
    await a!.runNow(job.name);
    await new Promise((r) => setTimeout(r, 500));
    expect(runs).toHaveLength(2);
    expect(await rowsNamed(job.name)).toEqual([{ type: 'single' }]); // the one-off row is gone
    await app.db.query('DELETE FROM agenda_jobs WHERE name = $1', [job.name]);
  });

  it('a failing run counts outcome="failure", runNow rejects, and the scheduler keeps going', async () => {
    let armed = false;
    const m = createMetrics(false);
    const job: JobModule = {
      name: `test-fail-${randomBytes(3).toString('hex')}`,
      every: '1 hour',
      run: async () => {
        if (armed) throw new Error('boom');
      },
    };
    const jobs = await scheduler({ jobs: [job] }, m);
    await expect
      .poll(() => counter(m.jobRuns, { job: job.name, outcome: 'success' }), { timeout: 5_000, interval: 20 })
      .toBe(1);
    armed = true;
    const failed = await jobs.runNow(job.name).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(JobFailedError);
    expect((failed as JobFailedError).reason).toBe('boom');
    expect(await counter(m.jobRuns, { job: job.name, outcome: 'failure' })).toBe(1);
    armed = false;
    await jobs.runNow(job.name);
    expect(await counter(m.jobRuns, { job: job.name, outcome: 'success' })).toBe(2);
    const durations = (await m.jobDuration.get()).values.filter(
      (v) => v.metricName === 'job_duration_seconds_count' && v.labels.job === job.name,
    );
    expect(durations.map((v) => v.value)).toEqual([3]);
    expect(await rowsNamed(job.name)).toEqual([{ type: 'single' }]);
    await app.db.query('DELETE FROM agenda_jobs WHERE name = $1', [job.name]);
  });

  it('runNow refuses a job it does not schedule', async () => {
    await expect(app.jobs!.runNow('no-such-job')).rejects.toThrow(/unknown job/);
  });
});

describe('/metrics', () => {
  it('shows the job metrics', async () => {
    await app.jobs!.runNow(expireScanContent.name);
    await app.jobs!.runNow(cleanupIdempotencyKeys.name);
    const r = await call(app, 'GET', '/metrics');
    expect(r.status).toBe(200);
    for (const name of [
      `jobs_runs_total{job="${expireScanContent.name}",outcome="success"}`,
      `jobs_runs_total{job="${cleanupIdempotencyKeys.name}",outcome="success"}`,
      `job_duration_seconds_count{job="${expireScanContent.name}"}`,
      `job_lag_seconds_count{job="${expireScanContent.name}"}`,
      'scan_content_expired_total',
      'idempotency_keys_expired_total',
    ])
      expect(r.text, name).toContain(name);
  });
});
