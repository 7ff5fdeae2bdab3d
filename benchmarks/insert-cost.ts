/**
 * What one stored scan costs PostgreSQL, by insert form and index set: CPU of the inserting backend
 * and WAL bytes per scan (issue 41, part 4; docs/performance.md "The database share").
 *
 *   npm run bench:insert-cost -- [--rows 2304] [--batch-sizes 1,9,64] [--rounds 3] [--prefill 100000]
 *                                [--warmup-rows 20000] [--forms json,values,copy]
 *                                [--index-sets migrated,before-0016] [--json]
 *
 * On a private PostgreSQL cluster (benchmarks/private-stack.ts: PostgreSQL's defaults, fsync and
 * synchronous_commit on; checkpoints pushed out of the measured windows, autovacuum off on the two
 * tables, so neither lands in one run and not another), one database per index set, migrated, each
 * prefilled with `--prefill` scans. Then, for each round, batch size, index set and form (the order
 * rotating each round), one connection inserts `--rows` scans in batches of that size, each batch
 * one transaction with the detection audit events of its non-allowed scans (49 % of them; the mix of
 * `npm run bench:scaling` has 43 %). Forms:
 *   - json:   what the group-commit writer runs (store/scans.ts insertScans: INSERT … SELECT FROM
 *             json_populate_recordset, scans and events in one statement, named prepared);
 *   - values: a multi-row INSERT … VALUES ($1, …), (…) with a data-modifying CTE for the events,
 *             named prepared per batch shape;
 *   - copy:   COPY scans FROM STDIN; COPY audit_events FROM STDIN in one Query message
 *             (benchmarks/copy-in.ts), text format.
 * Per scan: CPU of the inserting backend (/proc/<pid>/schedstat, ns), CPU of the whole cluster
 * (postmaster tree, 10 ms ticks: WAL writer, checkpointer), WAL (pg_current_wal_lsn), after a checkpoint
 * and `--warmup-rows` scans that touch every index page new scans go to. Reports the
 * median and range over rounds; writes benchmarks/results/insert-cost-<timestamp>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { systemClock } from '../lib/clock.ts';
import { createOrganization } from '../services/organizations.ts';
import { DETECTION_EVENT_COLUMNS, type DetectionEvent } from '../store/audit.ts';
import { createPool, type Db } from '../store/db.ts';
import { detectionEventFor } from '../store/detection-events.ts';
import { migrate } from '../store/migrate.ts';
import { insertScans, type ScanRow } from '../store/scans.ts';
import { liveScanRow } from './analytics-data.ts';
import { parseCli } from './cli.ts';
import { copyIn, type CopyColumn } from './copy-in.ts';
import { INDEX_SETS, type IndexSet } from './insert-cost-indexes.ts';
import { startPrivatePostgres } from './private-stack.ts';
import { median } from './rounds.ts';
import { machineInfo, ROOT, treeCpuSeconds } from './processes.ts';

const USAGE =
  'usage: npm run bench:insert-cost -- [--rows N] [--batch-sizes 1,9,64] [--rounds N] [--prefill N] [--warmup-rows N] [--forms json,values,copy] [--index-sets migrated,before-0016] [--json]';
const {
  values: args,
  positiveInt,
  fail,
} = parseCli(USAGE, {
  rows: { type: 'string', default: '2304' },
  'batch-sizes': { type: 'string', default: '1,9,64' },
  rounds: { type: 'string', default: '3' },
  prefill: { type: 'string', default: '100000' },
  'warmup-rows': { type: 'string', default: '20000' },
  forms: { type: 'string', default: 'json,values,copy' },
  'index-sets': { type: 'string', default: 'migrated' },
  json: { type: 'boolean', default: false },
});
const ROWS = positiveInt('rows', args.rows);
const ROUNDS = positiveInt('rounds', args.rounds);
const PREFILL = Number(args.prefill);
const WARMUP = Number(args['warmup-rows']);
const SIZES = args['batch-sizes'].split(',').map((s) => positiveInt('batch-sizes', s.trim()));
const FORMS = args.forms.split(',').map((s) => s.trim());
const SETS = args['index-sets'].split(',').map((s) => s.trim());
for (const f of FORMS) if (!['json', 'values', 'copy'].includes(f)) fail(`unknown form ${f}`);
for (const s of SETS) if (!(s in INDEX_SETS)) fail(`unknown index set ${s}: ${Object.keys(INDEX_SETS).join(', ')}`);
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);

// The scans columns as insertScans writes them; jsonb ones take JSON text.
const SCAN_COLUMNS: CopyColumn[] = (
  'org_id, id, created_at, kind, surface, tier, agent_id, session_id, mcp_server, trace_id, end_user_id, end_user_id_hash, action, ' +
  'decision:json, findings:json, scores:json, content_stored, content:json, content_expires_at, content_chars, latency_ms, api_key_id, request_id, mcp_tools:json, observed_action'
)
  .split(', ')
  .map((c) => {
    const [name, kind] = c.split(':') as [string, 'json' | undefined];
    return kind ? { name, kind } : { name };
  });
const EVENT_COLUMNS: CopyColumn[] = DETECTION_EVENT_COLUMNS.split(', ').map((name) =>
  name.endsWith('_tags') ? { name, kind: 'array' } : { name },
);

/** A scan: 49 % non-allowed (flagged by PII or blocked by prompt injection), with an API key. */
function mixScan(orgId: string, i: number): ScanRow {
  const row = liveScanRow(orgId, i);
  row.api_key_id = 'key_bench';
  row.request_id = `req-${i}`;
  row.end_user_id_hash = i % 3 ? null : (i % 1000).toString(16).padStart(64, '0');
  if (row.action === 'allowed' && i % 7 < 3) {
    row.action = 'flagged';
    row.decision = { ...row.decision, action: 'flagged', triggering_finding: 'pii:EMAIL_ADDRESS' };
    row.scores = { ...row.scores, pii: 0.93 };
  } else if (row.action === 'blocked') {
    row.decision = { ...row.decision, triggering_finding: 'prompt_injection' };
  }
  return row;
}

function valuesList(columns: readonly CopyColumn[], rows: number, first: number): string {
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++)
    tuples.push(`(${columns.map((_, c) => `$${first + r * columns.length + c}`).join(', ')})`);
  return tuples.join(', ');
}

function params(columns: readonly CopyColumn[], rows: readonly object[]): unknown[] {
  const out: unknown[] = [];
  for (const row of rows)
    for (const c of columns) {
      const v = (row as Record<string, unknown>)[c.name];
      // pg sends a JavaScript array as a PostgreSQL array literal: JSON columns take JSON text.
      out.push(c.kind === 'json' && v !== null && v !== undefined ? JSON.stringify(v) : (v ?? null));
    }
  return out;
}

const names = (columns: readonly CopyColumn[]) => columns.map((c) => c.name).join(', ');

/** Multi-row INSERT … VALUES, the events in a data-modifying CTE: one named statement per batch shape. */
async function insertValues(db: Db, rows: readonly ScanRow[], events: readonly DetectionEvent[]): Promise<void> {
  const scans = `INSERT INTO scans (${names(SCAN_COLUMNS)}) VALUES ${valuesList(SCAN_COLUMNS, rows.length, 1)}`;
  const text = events.length
    ? `WITH s AS (${scans}) INSERT INTO audit_events (${names(EVENT_COLUMNS)}) VALUES ${valuesList(EVENT_COLUMNS, events.length, 1 + rows.length * SCAN_COLUMNS.length)}`
    : scans;
  const values = [...params(SCAN_COLUMNS, rows), ...params(EVENT_COLUMNS, events)];
  await db.query({ name: `insert_cost_values_${rows.length}_${events.length}`, text, values });
}

const FORM_INSERT: Record<string, (db: Db, rows: ScanRow[], events: DetectionEvent[]) => Promise<void>> = {
  json: (db, rows, events) => insertScans(db, rows, events),
  values: insertValues,
  copy: (db, rows, events) =>
    copyIn(db, [
      { table: 'scans', columns: SCAN_COLUMNS, rows },
      { table: 'audit_events', columns: EVENT_COLUMNS, rows: events },
    ]),
};

const cluster = await startPrivatePostgres();
const admin = createPool(cluster.url, 1, () => undefined);
const dbs = new Map<string, { url: string; orgId: string; pools: Map<string, Db> }>();
const seq = { n: 0 };
const batchOf = (orgId: string, size: number) => {
  const rows = Array.from({ length: size }, () => mixScan(orgId, seq.n++));
  return { rows, events: rows.flatMap((r) => detectionEventFor(r, 'non_allowed') ?? []) };
};

/** CPU nanoseconds the process `pid` has run (/proc/<pid>/schedstat). */
const cpuNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const walLsn = async () =>
  (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
const walDiff = async (from: string) =>
  Number(
    (await admin.query<{ d: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS d', [from]))
      .rows[0]!.d,
  );

interface Run {
  backend_us_per_scan: number;
  cluster_us_per_scan: number;
  wal_bytes_per_scan: number;
  events_per_scan: number;
  ms_per_batch: number;
}

async function measure(set: string, form: string, size: number): Promise<Run> {
  const d = dbs.get(set)!;
  const db = d.pools.get(form)!;
  const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const batches = Math.ceil(ROWS / size);
  const work = Array.from({ length: batches }, () => batchOf(d.orgId, size));
  const events = work.reduce((n, b) => n + b.events.length, 0);
  const lsn = await walLsn();
  const cpu0 = cpuNs(pid);
  const tree0 = treeCpuSeconds(cluster.pid(), true) ?? 0;
  const started = performance.now();
  for (const b of work) await FORM_INSERT[form]!(db, b.rows, b.events);
  const ms = performance.now() - started;
  const cpu = cpuNs(pid) - cpu0;
  const tree = (treeCpuSeconds(cluster.pid(), true) ?? 0) - tree0;
  const wal = await walDiff(lsn);
  const scans = batches * size;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    backend_us_per_scan: r3(cpu / 1000 / scans),
    cluster_us_per_scan: r3((tree * 1e6) / scans),
    wal_bytes_per_scan: Math.round(wal / scans),
    events_per_scan: r3(events / scans),
    ms_per_batch: r3(ms / batches),
  };
}

const runs: Record<string, Run[]> = {};
try {
  // Checkpoints (and their full-page images) only where the benchmark asks for one.
  await admin.query(`ALTER SYSTEM SET checkpoint_timeout = '1d'`);
  await admin.query(`ALTER SYSTEM SET max_wal_size = '20GB'`);
  await admin.query('SELECT pg_reload_conf()');
  for (const set of SETS) {
    const name = `insert_cost_${set.replace(/\W/g, '_')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(`/${name}`, cluster.url).toString();
    const setup = createPool(url, 1, () => undefined);
    await migrate(setup);
    for (const sql of (INDEX_SETS[set] as IndexSet).sql) await setup.query(sql);
    await setup.query('ALTER TABLE scans SET (autovacuum_enabled = false)');
    await setup.query('ALTER TABLE audit_events SET (autovacuum_enabled = false)');
    const org = await createOrganization(setup, systemClock, 'insert cost benchmark');
    for (let left = PREFILL; left > 0; left -= 500) {
      const b = batchOf(org.id, Math.min(500, left));
      await insertScans(setup, b.rows, b.events);
    }
    await setup.query('VACUUM ANALYZE scans');
    await setup.query('VACUUM ANALYZE audit_events');
    await setup.end();
    const pools = new Map(FORMS.map((f) => [f, createPool(url, 1, () => undefined)] as const));
    dbs.set(set, { url, orgId: org.id, pools });
    say(`${set}: ${PREFILL} scans prefilled`);
  }
  await admin.query('CHECKPOINT');
  // After the checkpoint, the first change to each page writes a full-page image. The agent, session
  // and end-user indexes take new entries all over (one insertion point per value): touch them all
  // before measuring, or the first runs pay images the later ones do not (~400 B per scan).
  for (const d of dbs.values())
    for (let left = WARMUP; left > 0; left -= 64) {
      const b = batchOf(d.orgId, 64);
      await insertScans(d.pools.get(FORMS[0]!)!, b.rows, b.events);
    }
  const combos = SETS.flatMap((set) => FORMS.map((form) => ({ set, form })));
  // One unrecorded pass: connections open, statements prepared.
  for (const { set, form } of combos) for (const size of SIZES) await measure(set, form, size);
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      const order = combos.map((_, i) => combos[(i + round) % combos.length]!);
      for (const { set, form } of order) {
        const r = await measure(set, form, size);
        (runs[`${set}|${form}|${size}`] ??= []).push(r);
        say(
          `round ${round + 1}, batch ${size}, ${set}, ${form}: backend ${r.backend_us_per_scan} µs/scan, cluster ${r.cluster_us_per_scan} µs/scan, WAL ${r.wal_bytes_per_scan} B/scan, ${r.ms_per_batch} ms/batch`,
        );
      }
    }
  }
} finally {
  for (const d of dbs.values()) for (const p of d.pools.values()) await p.end();
  await admin.end();
  await cluster.stop();
}

const stat = (xs: number[]) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const summary = Object.entries(runs).map(([key, rs]) => {
  const [set, form, size] = key.split('|') as [string, string, string];
  return {
    index_set: set,
    form,
    batch_size: Number(size),
    backend_us_per_scan: stat(rs.map((r) => r.backend_us_per_scan)),
    cluster_us_per_scan: stat(rs.map((r) => r.cluster_us_per_scan)),
    wal_bytes_per_scan: stat(rs.map((r) => r.wal_bytes_per_scan)),
    events_per_scan: rs[0]!.events_per_scan,
  };
});
const report = {
  when: new Date().toISOString(),
  machine: machineInfo(),
  postgres: cluster.version,
  command: `npm run bench:insert-cost -- ${process.argv.slice(2).join(' ')}`.trim(),
  rows: ROWS,
  prefill: PREFILL,
  rounds: ROUNDS,
  summary,
  runs,
};
const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `insert-cost-${report.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const f = (s: { median: number; min: number; max: number }) => `${s.median} (${s.min}–${s.max})`;
  for (const s of summary)
    say(
      `batch ${String(s.batch_size).padStart(2)} ${s.index_set.padEnd(12)} ${s.form.padEnd(6)} backend ${f(s.backend_us_per_scan)} µs  cluster ${f(s.cluster_us_per_scan)} µs  WAL ${f(s.wal_bytes_per_scan)} B per scan`,
    );
  say(`wrote ${path.relative(ROOT, file)}`);
}
