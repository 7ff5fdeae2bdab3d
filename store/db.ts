import pg from 'pg';

/** Anything that runs a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export type Db = pg.Pool;

// int8 counts come back as numbers; they never exceed 2^53 here.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

/** Creates the connection pool. Errors on idle clients are logged, never fatal. */
export function createPool(connectionString: string, max: number, onError: (err: Error) => void): Db {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  pool.on('error', onError);
  return pool;
}

/**
 * Runs `fn` in a transaction on one client: COMMIT when it resolves, ROLLBACK when it throws.
 * @throws whatever `fn` throws, after the rollback.
 */
export async function withTransaction<T>(db: Db, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
