import pg from 'pg';

/**
 * The database a benchmark runs against: DATABASE_URL when set, else database `name` on the local
 * PostgreSQL (trusted local connections), dropped and created fresh.
 */
export async function benchmarkDatabase(name: string): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}
