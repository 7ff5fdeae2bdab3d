import pg from 'pg';
import { poolerClient, setStatementMode, type Pooler } from './pooler.ts';

/** Anything that runs a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export type Db = pg.Pool;

// int8 counts come back as numbers; they never exceed 2^53 here.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export interface PoolOptions {
  /**
   * What sits between us and PostgreSQL (DATABASE_POOLER, resolved: store/pooler.ts). `transaction`:
   * every statement goes unnamed (no server-side prepared statement outlives its transaction).
   */
  pooler?: Pooler;
  /** false: unnamed statements even without a pooler (the scan-insert benchmark's comparison). */
  namedStatements?: boolean;
  /** Told once when a named statement met a pooler (26000/42P05) and the pool went unnamed. */
  onUnnamedFallback?: (err: Error) => void;
}

/**
 * Creates the connection pool. A connection that breaks (PostgreSQL restarted, killed, or shut down
 * with `pg_ctl stop -m fast`: error 57P01 on every open connection) is reported to `onError` and
 * dropped, never fatal: pg-pool listens for `'error'` only on idle clients and removes its listener
 * while a client is checked out, so without a listener of our own an error on a checked-out client
 * (a transaction, a LISTEN connection) is an unhandled `'error'` event that kills the process.
 * The query that was running on it rejects, and the pool opens a fresh connection for the next one.
 * Named statements go unnamed behind a transaction pooler (`options.pooler`; store/pooler.ts).
 */
export function createPool(
  connectionString: string,
  max: number,
  onError: (err: Error) => void,
  options: PoolOptions = {},
): Db {
  const pooler = options.pooler ?? 'none';
  const mode = { pooler, named: pooler === 'none' && options.namedStatements !== false };
  const Client = poolerClient(mode, options.onUnnamedFallback ?? (() => undefined));
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    Client,
  });
  setStatementMode(pool, mode);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/**
 * Runs `fn` in a transaction on one client: COMMIT when it resolves, ROLLBACK when it throws.
 * A client whose connection broke is destroyed on release instead of going back to the pool.
 * @throws whatever `fn` throws, after the rollback.
 */
export async function withTransaction<T>(db: Db, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
    throw err;
  } finally {
    client.release(broken);
  }
}

// deadlock_detected and serialization_failure: PostgreSQL rolled the transaction back as a whole, and
// running it again is what the server asks for (nothing of the failed run was kept).
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);

/** Whether `err` is a deadlock or serialization failure: the transaction can be run again from the start. */
export function isRetryableTransactionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

/**
 * `withTransaction`, run again from the start (a fresh BEGIN) when PostgreSQL aborts it as a deadlock
 * victim or a serialization failure, up to `attempts` runs in all. `fn` must be safe to run again:
 * it is given a new transaction each time and must not carry state from a failed run.
 * @throws the last error, or any other error at once.
 */
export async function withRetriedTransaction<T>(
  db: Db,
  fn: (tx: pg.PoolClient) => Promise<T>,
  o: { attempts: number; onRetry?: (err: Error, attempt: number) => void },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(db, fn);
    } catch (err) {
      if (attempt >= o.attempts || !isRetryableTransactionError(err)) throw err;
      o.onRetry?.(err as Error, attempt);
    }
  }
}

/** A round trip to the database (readiness). @throws when it cannot be reached. */
export async function ping(db: Db): Promise<void> {
  await db.query('SELECT 1');
}
