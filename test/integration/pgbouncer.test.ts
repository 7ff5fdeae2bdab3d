/**
 * The service behind a real PgBouncer (Debian's 1.18) in transaction pooling mode
 * (docs/operators/pgbouncer.md, docs/decisions/0015-pgbouncer-transaction-pooling.md):
 * DATABASE_POOLER=auto detects it, scans, keys, idempotency, webhooks and jobs work end to end
 * through it, a named statement that meets another server connection falls back to unnamed ones,
 * and nothing the service does leaves session state on a server connection that the next client
 * would inherit. Skipped, saying so, without the pgbouncer binary.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../lib/logger.ts';
import { openRuntime } from '../../server/runtime.ts';
import { createPool, withTransaction } from '../../store/db.ts';
import { detectPooler, statementModeOf } from '../../store/pooler.ts';
import { insertScans, type ScanRow } from '../../store/scans.ts';
import {
  buildOrg,
  call,
  isolatedDirectDatabase,
  startTestApp,
  TEST_MASTER_SECRET,
  type TestApp,
} from '../support/harness.ts';
import { PgBouncer, pgbouncerInstalled } from '../support/pgbouncer.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';

const installed = pgbouncerInstalled();
if (!installed) console.warn('pgbouncer tests skipped: no /usr/sbin/pgbouncer (apt-get install pgbouncer)');

/** What a server connection carries from one client's transaction to the next one's. */
interface SessionState {
  search_path: string;
  statement_timeout: string;
  timezone: string;
  prepared: number;
  listening: number;
  advisory_locks: number;
  temp_schema: boolean;
}

// Session state as a fresh connection has it (the server's defaults).
async function defaults(url: string): Promise<SessionState> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return await sessionState(c);
  } finally {
    await c.end();
  }
}

async function sessionState(c: pg.ClientBase): Promise<SessionState> {
  const { rows } = await c.query<SessionState>(
    `SELECT current_setting('search_path') AS search_path,
            current_setting('statement_timeout') AS statement_timeout,
            current_setting('TimeZone') AS timezone,
            (SELECT count(*)::int FROM pg_prepared_statements) AS prepared,
            (SELECT count(*)::int FROM pg_listening_channels()) AS listening,
            (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory_locks,
            pg_my_temp_schema() <> 0 AS temp_schema`,
  );
  return rows[0]!;
}

/**
 * The session state of every server connection of a pool of `poolSize`: as many clients each hold a
 * transaction open at once, so each sits on its own server connection, and read their state there.
 */
async function everyServerSession(bouncer: PgBouncer, database: string, poolSize: number): Promise<SessionState[]> {
  const clients = Array.from({ length: poolSize }, () => new pg.Client(bouncer.url(database)));
  try {
    for (const c of clients) await c.connect();
    for (const c of clients) await c.query('BEGIN');
    const states = [];
    for (const c of clients) states.push(await sessionState(c));
    for (const c of clients) await c.query('COMMIT');
    return states;
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);

describe.skipIf(!installed)('PgBouncer, transaction pooling', () => {
  let bouncer: PgBouncer;
  let direct: string;
  beforeAll(async () => {
    // Two server connections: transactions of different clients meet on the same ones.
    bouncer = await PgBouncer.start({ poolSize: 2 });
    direct = inject('directDatabaseUrl');
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  it.runIf(inject('pgbouncerPort') > 0)(
    'npm run test:pgbouncer: the run database is reached through PgBouncer, with DATABASE_POOLER=transaction',
    async () => {
      expect(new URL(inject('databaseUrl')).port).toBe(String(inject('pgbouncerPort')));
      expect(process.env.DATABASE_POOLER).toBe('transaction');
      expect((await detectPooler(inject('databaseUrl'))).pooler).toBe('transaction');
      const app = await startTestApp();
      try {
        expect(statementModeOf(app.db)).toEqual({ pooler: 'transaction', named: false });
      } finally {
        await app.close();
      }
    },
  );

  it('auto-detection: transaction pooling behind PgBouncer; none directly and behind a session-mode PgBouncer', async () => {
    expect((await detectPooler(bouncer.through(direct))).pooler).toBe('transaction');
    expect((await detectPooler(direct)).pooler).toBe('none');
    const session = await PgBouncer.start({ poolMode: 'session', poolSize: 4 });
    try {
      expect((await detectPooler(session.through(direct))).pooler).toBe('none');
    } finally {
      await session.stop();
    }
  });

  it("npm start's runtime (server/runtime.ts) logs what auto chose, and makes its pool for it", async () => {
    const url = await isolatedDirectDatabase();
    for (const [databaseUrl, expected] of [
      [bouncer.through(url), 'transaction'],
      [url, 'none'],
    ] as const) {
      const lines: string[] = [];
      const logger = createLogger(
        'info',
        new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
      );
      const config = loadConfig({ DATABASE_URL: databaseUrl, SECRET_KEY: TEST_MASTER_SECRET, LOG_LEVEL: 'info' });
      const runtime = await openRuntime(config, logger);
      try {
        expect(runtime.pooler).toBe(expected);
        expect(statementModeOf(runtime.db)).toEqual({ pooler: expected, named: expected === 'none' });
        const chose = lines.map((l) => JSON.parse(l)).find((l) => /^database pooler/.test(l.msg));
        expect(chose).toMatchObject({ pooler: expected, setting: 'auto' });
        expect(chose.evidence).toEqual(expect.any(String));
      } finally {
        await runtime.close();
      }
    }
  });

  describe('the service through it, DATABASE_POOLER=auto', () => {
    let app: TestApp;
    let receiver: Receiver;
    let database: string;
    beforeAll(async () => {
      receiver = await startReceiver();
      // A database of its own: the session checks below read every server connection of its pool.
      const url = await isolatedDirectDatabase();
      database = databaseOf(url);
      app = await startTestApp({
        jobs: true,
        env: {
          DATABASE_URL: bouncer.through(url),
          DATABASE_POOLER: 'auto',
          WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
          WEBHOOK_CA_FILE: TEST_CA_FILE,
          WEBHOOK_TIMEOUT_MS: '1500',
        },
      });
    });
    afterAll(async () => {
      await app?.close();
      await receiver?.close();
    });

    it('detects the pooler: every statement unnamed (the job scheduler polls: no LISTEN, checked below)', () => {
      expect(statementModeOf(app.db)).toEqual({ pooler: 'transaction', named: false });
    });

    it('keys, scans (the group-commit writer), idempotency, webhooks and jobs work end to end', async () => {
      const org = await buildOrg(app);
      const key = await call(app, 'POST', '/v1/api-keys', {
        key: org.admin,
        json: { name: 'scanner', scopes: ['scans:write', 'scans:read'], environment: 'live' },
      });
      expect(key.status).toBe(201);
      const hook = await call(app, 'POST', '/v1/webhooks', {
        key: org.admin,
        json: { url: receiver.url, events: ['scan.allowed'] },
      });
      expect(hook.status).toBe(201);

      const scan = (text: string, headers: Record<string, string> = {}) =>
        call(app, 'POST', '/v1/scans', {
          key: key.body.secret,
          headers,
          json: {
            kind: 'content',
            surface: 'user_message',
            content: { type: 'text', text },
            options: { tier: 'fast' },
          },
        });
      // Concurrent scans: several batches of the writer, on whichever server connection each gets.
      const scans = await Promise.all(Array.from({ length: 24 }, (_, i) => scan(`hello number ${i}`)));
      for (const s of scans) expect(s.status, s.text).toBe(201);
      const read = await call(app, 'GET', `/v1/scans/${scans[0]!.body.id}`, { key: key.body.secret });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(scans[0]!.body.id);

      const idem = { 'idempotency-key': `pgb-${randomBytes(4).toString('hex')}` };
      const first = await scan('the same request twice', idem);
      const again = await scan('the same request twice', idem);
      expect(first.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);

      const got = await receiver.waitFor(scans.length + 1, 20_000);
      expect(new Set(got.map((r) => r.headers['service-event-id'])).size).toBe(scans.length + 1);

      // A scheduled job's run, locked and finished through PgBouncer.
      await app.jobs!.runNow('rollup-analytics');
      await app.jobs!.runNow('cleanup-idempotency-keys');

      const revoke = await call(app, 'POST', `/v1/api-keys/${key.body.id}:revoke`, { key: org.admin });
      expect(revoke.status).toBe(204);
      expect((await scan('after revocation')).status).toBe(401);
    });

    it('leaves no session state on any server connection: what the next client gets is a fresh session', async () => {
      const fresh = await defaults(inject('directDatabaseUrl'));
      const states = await everyServerSession(bouncer, database, 2);
      expect(states).toHaveLength(2);
      for (const s of states) expect(s).toEqual({ ...fresh, prepared: 0, listening: 0, advisory_locks: 0 });
    });
  });

  it('a session SET by another client does leak through a shared server connection (so the check above can fail); server_reset_query_always=1 stops it', async () => {
    const url = await isolatedDirectDatabase();
    const database = databaseOf(url);
    const leak = async (b: PgBouncer): Promise<SessionState> => {
      const c = new pg.Client(b.url(database));
      await c.connect();
      await c.query("SET search_path TO leaked, public; SET statement_timeout = '12s'");
      await c.end();
      return (await everyServerSession(b, database, 1))[0]!;
    };
    const shared = await PgBouncer.start({ poolSize: 1 });
    try {
      const state = await leak(shared);
      expect(state.search_path).toBe('leaked, public');
      expect(state.statement_timeout).toBe('12s');
    } finally {
      await shared.stop();
    }
    const reset = await PgBouncer.start({ poolSize: 1, settings: { server_reset_query_always: '1' } });
    try {
      const state = await leak(reset);
      expect(state.search_path).toBe((await defaults(url)).search_path);
      expect(state.statement_timeout).toBe('0');
    } finally {
      await reset.stop();
    }
  });

  describe('a pool that still names its statements (auto found no pooler)', () => {
    const scanRow = (orgId: string): ScanRow => ({
      org_id: orgId,
      id: `scan_${randomBytes(12).toString('hex')}`,
      created_at: new Date(),
      kind: 'content',
      surface: 'user_message',
      tier: 'fast',
      agent_id: null,
      session_id: null,
      mcp_server: null,
      trace_id: null,
      end_user_id_hash: null,
      action: 'allowed',
      decision: { action: 'allowed' },
      findings: [],
      scores: {},
      content_stored: false,
      content: null,
      content_expires_at: null,
      content_chars: 5,
      latency_ms: 1,
      api_key_id: null,
      request_id: null,
      mcp_tools: null,
      observed_action: null,
    });
    let orgId: string;
    beforeAll(async () => {
      const app = await startTestApp();
      try {
        orgId = (await buildOrg(app)).orgId;
      } finally {
        await app.close();
      }
    });

    /**
     * A pool (one client) of its own PgBouncer with two server connections, so which one each statement
     * meets is known: its named insert is prepared on server connection X, then another client holds X
     * in a transaction, so the pool's next statement goes to Y, which never saw the Parse. `check` runs
     * then, with the codes the pool fell back to unnamed statements on.
     */
    async function withStrandedStatement(check: (pool: pg.Pool, fallbacks: string[]) => Promise<void>) {
      const b = await PgBouncer.start({ poolSize: 2 });
      const fallbacks: string[] = [];
      const pool = createPool(b.through(direct), 1, () => undefined, {
        onUnnamedFallback: (err) => fallbacks.push((err as { code?: string }).code ?? ''),
      });
      const holder = new pg.Client(b.through(direct));
      try {
        await insertScans(pool, [scanRow(orgId)]); // prepared on server connection X
        await holder.connect();
        await holder.query('BEGIN'); // holds X (the most recently released)
        await holder.query('SELECT 1');
        await check(pool, fallbacks);
      } finally {
        await holder.end().catch(() => undefined);
        await pool.end();
        await b.stop();
      }
    }

    it('26000 (prepared statement does not exist on this server connection): the pool goes unnamed and the insert is run again, once', () =>
      withStrandedStatement(async (pool, fallbacks) => {
        const second = scanRow(orgId);
        await insertScans(pool, [second]); // the pool's client skips Parse; server connection Y never saw it
        expect(fallbacks).toEqual(['26000']);
        expect(statementModeOf(pool).named).toBe(false);
        const { rows } = await pool.query('SELECT id FROM scans WHERE org_id = $1 AND id = $2', [orgId, second.id]);
        expect(rows).toHaveLength(1);
      }));

    it('inside a transaction the 26000 aborts it and reaches the caller; the pool is unnamed from then on', () =>
      withStrandedStatement(async (pool, fallbacks) => {
        const row = scanRow(orgId);
        await expect(withTransaction(pool, (tx) => insertScans(tx, [row]))).rejects.toMatchObject({ code: '26000' });
        expect(fallbacks).toEqual(['26000']);
        expect(statementModeOf(pool).named).toBe(false);
        await withTransaction(pool, (tx) => insertScans(tx, [row]));
        const { rows } = await pool.query('SELECT id FROM scans WHERE org_id = $1 AND id = $2', [orgId, row.id]);
        expect(rows).toHaveLength(1);
      }));

    it('42P05 (already exists: another client prepared it on this server connection): the same fallback', async () => {
      const b = await PgBouncer.start({ poolSize: 1 });
      const fallbacks: string[] = [];
      const first = createPool(b.through(direct), 1, () => undefined);
      const second = createPool(b.through(direct), 1, () => undefined, {
        onUnnamedFallback: (err) => fallbacks.push((err as { code?: string }).code ?? ''),
      });
      try {
        await insertScans(first, [scanRow(orgId)]); // prepared on the only server connection
        const row = scanRow(orgId);
        await insertScans(second, [row]); // another client's Parse of the same name, on the same server connection
        expect(fallbacks).toEqual(['42P05']);
        expect(statementModeOf(second).named).toBe(false);
        expect(
          (await second.query('SELECT 1 FROM scans WHERE org_id = $1 AND id = $2', [orgId, row.id])).rowCount,
        ).toBe(1);
      } finally {
        await first.end();
        await second.end();
        await b.stop();
      }
    });
  });
});
