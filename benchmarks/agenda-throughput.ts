/**
 * Agenda throughput on PostgreSQL: how many one-off jobs per second one process completes. Decides
 * whether webhook deliveries can be one Agenda job per attempt (need ≥ 500/s with headroom) or need
 * an outbox table drained by our own pump.
 *
 *   npm run bench:agenda -- [--jobs 5000] [--concurrency 50] [--lock-limit 200] [--process-every 100]
 *                           [--no-notifications] [--runs 1]
 *
 * One process, PostgresBackend on the scratch table `agenda_bench_jobs` (and NOTIFY channel of the
 * same name) in DATABASE_URL or the local `postgres` database; the table is created fresh for each
 * run and dropped at the end. A no-op job is defined with `--concurrency` and `--lock-limit` (how
 * many it may hold locked; 0 = unlimited, which locks the whole backlog one row at a time before
 * running any). `--no-notifications` turns LISTEN/NOTIFY off (polling only). Two measurements per run:
 *   backlog: `--jobs` jobs due now are saved (agenda.create().save(), 50 at a time) before start();
 *            the clock runs from start() until every handler has run;
 *   live:    the processor is running and the jobs are enqueued with agenda.now() (50 at a time, each
 *            announced over NOTIFY); the clock runs from the first enqueue until every handler has run.
 */
import { parseArgs } from 'node:util';
import { getCreateIndexesSQL, getCreateTableSQL, getDropTableSQL, PostgresBackend } from '@agendajs/postgres-backend';
import { Agenda } from 'agenda';
import pg from 'pg';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '50' },
    'lock-limit': { type: 'string', default: '200' },
    'process-every': { type: 'string', default: '100' },
    'no-notifications': { type: 'boolean', default: false },
    runs: { type: 'string', default: '1' },
  },
});
const N = Number(args.jobs);
const CONCURRENCY = Number(args.concurrency);
const LOCK_LIMIT = Number(args['lock-limit']);
const PROCESS_EVERY = Number(args['process-every']);
const TABLE = 'agenda_bench_jobs';
const ENQUEUE_PARALLEL = 50;

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  max: 20,
});

async function freshTable(): Promise<void> {
  await pool.query(getDropTableSQL(TABLE));
  await pool.query(getCreateTableSQL(TABLE));
  for (const sql of getCreateIndexesSQL(TABLE)) await pool.query(sql);
}

/** One measurement: jobs/s from `t0` (taken by `measure`) until `N` handlers have run. */
async function measure(mode: 'backlog' | 'live'): Promise<{ enqueueS: number; totalS: number }> {
  await freshTable();
  // ensureSchema off: the table is ours (and on, the backend would also create an agenda_logs table).
  const agenda = new Agenda({
    backend: new PostgresBackend({
      pool,
      tableName: TABLE,
      channelName: TABLE,
      ensureSchema: false,
      disableNotifications: args['no-notifications'],
    }),
    name: `bench-${process.pid}`,
    processEvery: PROCESS_EVERY,
    maxConcurrency: CONCURRENCY,
    removeOnComplete: false,
  });
  let done = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  agenda.define(
    'noop',
    async () => {
      if (++done === N) allDone();
    },
    { concurrency: CONCURRENCY, lockLimit: LOCK_LIMIT },
  );
  await agenda.ready;

  const enqueue = async (one: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < N; i += ENQUEUE_PARALLEL) {
      await Promise.all(Array.from({ length: Math.min(ENQUEUE_PARALLEL, N - i) }, (_, k) => one(i + k)));
    }
  };
  let enqueueS: number;
  let t0: number;
  if (mode === 'backlog') {
    const e0 = performance.now();
    await enqueue((i) => agenda.create('noop', { i }).schedule(new Date()).save());
    enqueueS = (performance.now() - e0) / 1000;
    t0 = performance.now();
    await agenda.start();
  } else {
    await agenda.start();
    t0 = performance.now();
    await enqueue((i) => agenda.now('noop', { i }));
    enqueueS = (performance.now() - t0) / 1000;
  }
  await finished;
  const totalS = (performance.now() - t0) / 1000;
  await agenda.drain();
  return { enqueueS, totalS };
}

try {
  process.stderr.write(
    `agenda ${N} no-op jobs, concurrency ${CONCURRENCY}, lockLimit ${LOCK_LIMIT || 'unlimited'}, processEvery ${PROCESS_EVERY} ms, ` +
      `notifications ${args['no-notifications'] ? 'off' : 'on'}\n`,
  );
  for (let run = 1; run <= Number(args.runs); run++) {
    for (const mode of ['backlog', 'live'] as const) {
      const { enqueueS, totalS } = await measure(mode);
      process.stdout.write(
        `run ${run} ${mode.padEnd(7)} enqueue ${(N / enqueueS).toFixed(0).padStart(5)} jobs/s (${enqueueS.toFixed(2)} s)  ` +
          `completed ${(N / totalS).toFixed(0).padStart(5)} jobs/s (${totalS.toFixed(2)} s${mode === 'live' ? ', enqueue included' : ''})\n`,
      );
    }
  }
} finally {
  await pool.query(getDropTableSQL(TABLE));
  await pool.end();
}
// Agenda leaves a lockLifetime/2 timer (5 min) behind every run it watched; don't wait for them.
process.exit(0);
