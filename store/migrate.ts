import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fromRoot } from '../lib/package-root.ts';
import { withTransaction, type Db } from './db.ts';

const MIGRATIONS_DIR = fromRoot('store/migrations');
// An arbitrary constant: every process that migrates takes the same advisory lock.
const MIGRATION_LOCK = 727_301_001;

/**
 * Applies every numbered migration (`NNNN_name.sql`) not yet recorded, in one transaction under an
 * advisory lock, so concurrent starters (cluster workers, the CLI) never race. Returns the applied names.
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return withTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const applied: string[] = [];
    for (const file of files) {
      const version = Number.parseInt(file.slice(0, 4), 10);
      if (done.has(version)) continue;
      await client.query(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'));
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file]);
      applied.push(file);
    }
    return applied;
  });
}
