import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { migrate } from '../store/migrate.ts';
import { createPool } from '../store/db.ts';
import type { Pooler } from '../store/pooler.ts';
import { PgBouncer } from './support/pgbouncer.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    /** A migrated database nobody connects to: `isolatedDatabase()` copies it for tests that need a database of their own. */
    templateDatabaseUrl: string;
    /** The run's database on the PostgreSQL server itself, never through PgBouncer (pg_dump, restore drills). */
    directDatabaseUrl: string;
    /** The PgBouncer port of a `TEST_PGBOUNCER=1` run (0: none): `databaseUrl` and isolated copies go through it. */
    pgbouncerPort: number;
    /** DATABASE_POOLER for the run's apps: `transaction` behind PgBouncer, else the default `auto`. */
    databasePooler: Pooler | 'auto';
  }
}

/**
 * One fresh database per test run on the real PostgreSQL server (TEST_DATABASE_URL, default the
 * local one), migrated once; dropped at the end. Redis (TEST_REDIS_URL) must answer PING. The
 * compiled build is made afresh from the sources under test (about a second): the tests that start
 * the binary or `npm start` run what ships, never a stale dist/app.
 * With TEST_PGBOUNCER=1 (`npm run test:pgbouncer`) a real PgBouncer in transaction pooling mode
 * (test/support/pgbouncer.ts) sits in front of the server, `databaseUrl` points through it and the
 * apps run with DATABASE_POOLER=transaction; `directDatabaseUrl` stays on the server itself.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('npm', ['run', '-s', 'build:app'], { stdio: 'inherit' });
  const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dbName = `cf_test_${Date.now()}_${randomBytes(3).toString('hex')}`;

  const admin = new pg.Client(serverUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();

  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const pool = createPool(databaseUrl, 2, () => undefined);
  await migrate(pool);
  await pool.end();
  // The template: migrated, then left alone (CREATE DATABASE … TEMPLATE needs it unconnected).
  const template = `${dbName}_tpl`;
  const c0 = new pg.Client(serverUrl);
  await c0.connect();
  await c0.query(`CREATE DATABASE ${template}`);
  await c0.end();
  url.pathname = `/${template}`;
  const templateUrl = url.toString();
  const tpool = createPool(templateUrl, 1, () => undefined);
  await migrate(tpool);
  await tpool.end();

  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  await redis.connect();
  await redis.ping();
  redis.disconnect();

  const bouncer = process.env.TEST_PGBOUNCER === '1' ? await PgBouncer.start({ poolSize: 20 }) : null;
  project.provide('databaseUrl', bouncer ? bouncer.through(databaseUrl) : databaseUrl);
  project.provide('directDatabaseUrl', databaseUrl);
  project.provide('pgbouncerPort', bouncer?.port ?? 0);
  project.provide('databasePooler', bouncer ? 'transaction' : 'auto');
  project.provide('redisUrl', redisUrl);
  project.provide('templateDatabaseUrl', templateUrl);

  return async () => {
    await bouncer?.stop();
    const c = new pg.Client(serverUrl);
    await c.connect();
    // The run's database, the template and every isolated copy.
    const { rows } = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${dbName}%`,
    ]);
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await c.end();
  };
}
