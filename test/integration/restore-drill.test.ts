/**
 * The operator's restore drill, run for real (docs/operators/restore-drill.sh, docs/operators/backup.md):
 * pg_dump of a deployment's database plus its DATA_DIR/secret.key, restored into a fresh database and a
 * fresh DATA_DIR, serve the old API key (200); the same database under a new secret.key refuses it (401).
 * Needs the PostgreSQL client tools (pg_dump, pg_restore, psql) on PATH; skipped without them.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'docs/operators/restore-drill.sh');

const hasTool = (tool: string) => {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const clientTools = ['pg_dump', 'pg_restore', 'psql'].every(hasTool);

/** The PostgreSQL server of the test database, without a database name: the drill creates its own two. */
function serverUrl(): string {
  // Always the server itself: pg_dump and psql set session state a transaction pooler would hand to other clients.
  const url = new URL(inject('directDatabaseUrl'));
  url.pathname = '';
  url.search = '';
  return url.toString();
}

describe.skipIf(!clientTools)('restore drill', () => {
  it(
    'a restored database with the backed-up secret.key accepts the old key; a new secret.key is refused at start, and once adopted the old key is not',
    { timeout: 300_000 },
    async () => {
      const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn('bash', [SCRIPT], {
          cwd: ROOT,
          env: { ...process.env, PG_SERVER_URL: serverUrl(), DATABASE_URL: '', SECRET_KEY: '', REDIS_URL: '' },
        });
        let output = '';
        child.stdout.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr.on('data', (d: Buffer) => (output += d.toString()));
        child.on('close', (exitCode) => resolve({ code: exitCode, output }));
      });
      expect(code, output).toBe(0);
      expect(output).toContain('GET /v1/me with the old key: 200');
      expect(output).toContain('start with a new secret.key: refused');
      expect(output).toContain('GET /v1/me with the old key, new secret.key: 401');
    },
  );
});
