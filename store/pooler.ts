import pg from 'pg';

/** `DATABASE_POOLER`: what sits between the service and PostgreSQL (docs/operators/pgbouncer.md). */
export type PoolerSetting = 'auto' | 'none' | 'transaction';

/**
 * What the pool is told: `none` (a direct connection, or a session-mode pooler: a client keeps its
 * server connection) or `transaction` (PgBouncer's transaction pooling: each transaction may run on
 * another server connection, so nothing may outlive a transaction: no named prepared statements,
 * no LISTEN, no session SET or advisory lock).
 */
export type Pooler = 'none' | 'transaction';

/** The statement mode of one pool, shared by its clients; `named` may be switched off at run time. */
export interface StatementMode {
  pooler: Pooler;
  /** Named (server-side prepared) statements are sent as named; false: every statement goes unnamed. */
  named: boolean;
}

// prepared statement "…" does not exist / already exists: what a named statement gets when the
// server connection behind the client is not the one it was prepared on (transaction pooling).
const STATEMENT_SQLSTATES = new Set(['26000', '42P05']);

/** Whether `err` is a named statement that met another server connection than the one it was prepared on. */
export function isPreparedStatementMismatch(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STATEMENT_SQLSTATES.has(code);
}

const modes = new WeakMap<object, StatementMode>();

/** The statement mode of a pool made by createPool (`none`, named, for any other). */
export function statementModeOf(db: object): Readonly<StatementMode> {
  return modes.get(db) ?? { pooler: 'none', named: true };
}

/** The pooler a pool was made for (store/db.ts createPool); `none` for any other pool. */
export function poolerOf(db: object): Pooler {
  return statementModeOf(db).pooler;
}

/** Records the mode of a pool (createPool). */
export function setStatementMode(db: object, mode: StatementMode): void {
  modes.set(db, mode);
}

type QueryCallback = (err: Error | null, res?: pg.QueryResult) => void;
interface NamedConfig extends pg.QueryConfig {
  name: string;
}

function isNamedConfig(config: unknown): config is NamedConfig {
  if (!config || typeof config !== 'object') return false;
  const c = config as { name?: unknown; submit?: unknown };
  return typeof c.name === 'string' && c.name !== '' && typeof c.submit !== 'function';
}

function unnamed(config: NamedConfig): pg.QueryConfig {
  const { name: _name, ...rest } = config;
  return rest;
}

/**
 * The pg Client class of one pool: a named statement goes unnamed while `mode.named` is false, and
 * a named statement that fails with 26000 (does not exist) or 42P05 (already exists), the signs of
 * a transaction pooler behind us, switches the whole pool to unnamed statements (`onFallback` is told
 * once) and runs that statement again, unnamed, once: outside a transaction only (inside one, the
 * error has aborted it; the caller sees the error, and its next run is unnamed).
 */
export function poolerClient(mode: StatementMode, onFallback: (err: Error) => void): typeof pg.Client {
  class PoolerClient extends pg.Client {
    // pg's overloads; the runtime shape is (config, values?, callback?).
    override query(config: unknown, values?: unknown, callback?: unknown): never {
      const run = (c: unknown, v?: unknown, cb?: unknown): never =>
        (super.query as (...args: unknown[]) => never).call(this, c, v, cb);
      if (!isNamedConfig(config)) return run(config, values, callback);
      if (!mode.named) return run(unnamed(config), values, callback);
      const cb = (typeof values === 'function' ? values : callback) as QueryCallback | undefined;
      const vals = typeof values === 'function' ? undefined : values;
      const inTransaction = this.getTransactionStatus() === 'T' || this.getTransactionStatus() === 'E';
      const fallBack = (err: Error): boolean => {
        if (!isPreparedStatementMismatch(err)) return false;
        if (mode.named) {
          mode.named = false;
          onFallback(err);
        }
        return !inTransaction;
      };
      if (cb) {
        return run(config, vals, (err: Error | null, res?: pg.QueryResult) => {
          if (err && fallBack(err)) return void run(unnamed(config), vals, cb);
          cb(err, res);
        });
      }
      return (run(config, vals) as Promise<pg.QueryResult>).catch((err: Error) => {
        if (!fallBack(err)) throw err;
        return run(unnamed(config), vals);
      }) as never;
    }
  }
  return PoolerClient;
}

// How many rounds of the probe: each client asks for its backend's pid once per round.
const PROBE_ROUNDS = 3;

/**
 * Tells a transaction pooler from a direct connection (or a session-mode pooler): two client
 * connections held open at once each ask for their backend's pid in separate transactions, in turn.
 * Directly, each client has its own backend for its lifetime: two distinct pids, never changing.
 * Behind transaction pooling a released server connection serves the next transaction of any client
 * (PgBouncer reuses the most recently released first), so a client's pid changes, or both clients see
 * the same one. Either is proof; their absence is not (a pooler handing each client a server of its
 * own every time looks direct), so `DATABASE_POOLER=transaction` stays the certain setting.
 * @throws when the database cannot be reached.
 */
export async function detectPooler(connectionString: string): Promise<{ pooler: Pooler; evidence: string }> {
  const clients = [new pg.Client({ connectionString }), new pg.Client({ connectionString })];
  try {
    for (const c of clients) await c.connect();
    const seen: number[][] = [[], []];
    for (let round = 0; round < PROBE_ROUNDS; round++) {
      for (const [i, c] of clients.entries()) {
        const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        seen[i]!.push(rows[0]!.pid);
      }
    }
    const [a, b] = seen as [number[], number[]];
    const changed = a.some((p) => p !== a[0]) || b.some((p) => p !== b[0]);
    const shared = a.some((p) => b.includes(p));
    if (changed || shared)
      return {
        pooler: 'transaction',
        evidence: changed ? 'a connection changed backends between transactions' : 'two connections shared a backend',
      };
    return { pooler: 'none', evidence: 'each connection kept its own backend' };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

/** The pooler for DATABASE_POOLER: `auto` probes (detectPooler), the others are taken as set. */
export async function resolvePooler(
  setting: PoolerSetting,
  connectionString: string,
): Promise<{ pooler: Pooler; detected: boolean; evidence: string }> {
  if (setting !== 'auto') return { pooler: setting, detected: false, evidence: 'DATABASE_POOLER' };
  return { ...(await detectPooler(connectionString)), detected: true };
}
