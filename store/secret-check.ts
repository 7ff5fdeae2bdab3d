import type { Db } from './db.ts';

/** The master secret a process holds is not the one the database's hashes and ciphertexts were made with. */
export class SecretMismatchError extends Error {
  constructor() {
    super(
      'the master secret (SECRET_KEY, or DATA_DIR/secret.key) is not the one this database was set up with: ' +
        'every API key, webhook signing secret and cursor depends on it. Restore it from backup ' +
        '(docs/operators/backup.md), or start once with ACCEPT_NEW_SECRET_KEY=true to adopt the new secret ' +
        'and invalidate all of them',
    );
    this.name = 'SecretMismatchError';
  }
}

/**
 * Records `fingerprint` when the database has none yet (a new deployment, or one from before the check),
 * and otherwise compares: a different one throws SecretMismatchError unless `acceptNew`, which records it
 * instead. Returns what happened.
 */
export async function checkSecretFingerprint(
  db: Db,
  fingerprint: string,
  acceptNew: boolean,
): Promise<'recorded' | 'matched' | 'replaced'> {
  const inserted = await db.query(
    'INSERT INTO secret_check (fingerprint) VALUES ($1) ON CONFLICT (singleton) DO NOTHING RETURNING fingerprint',
    [fingerprint],
  );
  if (inserted.rowCount) return 'recorded';
  const { rows } = await db.query<{ fingerprint: string }>('SELECT fingerprint FROM secret_check');
  if (rows[0]?.fingerprint === fingerprint) return 'matched';
  if (!acceptNew) throw new SecretMismatchError();
  await db.query('UPDATE secret_check SET fingerprint = $1, recorded_at = now()', [fingerprint]);
  return 'replaced';
}
