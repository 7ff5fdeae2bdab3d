import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { buildKeyring, secretFingerprint, type Keyring } from '../lib/crypto.ts';
import type { Logger } from '../lib/logger.ts';
import { createRedis, waitForRedis, type Redis } from '../lib/redis.ts';
import { createPool, type Db } from '../store/db.ts';
import { EmbeddedPostgres, type EmbeddedHandle } from '../store/embedded.ts';
import { migrate } from '../store/migrate.ts';
import { resolvePooler, type Pooler } from '../store/pooler.ts';
import { checkSecretFingerprint } from '../store/secret-check.ts';

// The longest close() waits for checked-out database connections before it goes on regardless.
const POOL_END_TIMEOUT_MS = 5_000;

/** The long-lived resources of a process (server or CLI): database, Redis, keys. */
export interface Runtime {
  db: Db;
  redis: Redis | null;
  keyring: Keyring;
  embedded: EmbeddedHandle | null;
  /** The connection pooler the pool was made for (DATABASE_POOLER, resolved at start). */
  pooler: Pooler;
  /** Closes the pool and Redis, and stops the embedded cluster if this process started it. */
  close(): Promise<void>;
}

/**
 * The master secret: SECRET_KEY, or `DATA_DIR/secret.key` (created on first use, mode 0600).
 * Every process of one deployment must share it: API key hashes and cursors are keyed by it.
 */
export async function loadMasterSecret(config: Readonly<Config>): Promise<Buffer> {
  if (config.SECRET_KEY) return Buffer.from(config.SECRET_KEY, 'utf8');
  const file = path.join(config.DATA_DIR, 'secret.key');
  const read = async (): Promise<Buffer> => {
    const text = (await readFile(file, 'utf8')).trim();
    if (!/^[0-9a-f]{64}$/.test(text)) {
      throw new Error(
        `${file} is not 64 hex characters; restore it from backup (API keys depend on it) or set SECRET_KEY`,
      );
    }
    return Buffer.from(text, 'hex');
  };
  try {
    return await read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(config.DATA_DIR, { recursive: true, mode: 0o711 });
  const secret = randomBytes(32).toString('hex');
  // 'wx': if another process created it meanwhile, read theirs instead of overwriting.
  try {
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return Buffer.from(secret, 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return read();
  }
}

/**
 * Opens the database (DATABASE_URL, else the embedded cluster under DATA_DIR; `superviseEmbedded`:
 * restart it if its postmaster dies, for the server), applies migrations,
 * checks the master secret against the one the database was set up with (store/secret-check.ts: a replaced
 * secret is refused unless ACCEPT_NEW_SECRET_KEY), connects Redis when REDIS_URL is set, and derives the keyring.
 */
export async function openRuntime(
  config: Readonly<Config>,
  logger: Logger,
  options: { superviseEmbedded?: boolean } = {},
): Promise<Runtime> {
  const master = await loadMasterSecret(config);
  const keyring = buildKeyring(master);
  let embedded: EmbeddedHandle | null = null;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await new EmbeddedPostgres(config.DATA_DIR, logger).ensure();
    url = embedded.url;
    // The server owns its database: if the postmaster dies, start it again (the CLI's runs are too short to need it).
    if (options.superviseEmbedded) embedded.supervise();
  }
  let pooler: Pooler = 'none';
  // The embedded cluster is ours and direct; a DATABASE_URL may be a pooler (auto: probe it).
  if (!embedded) {
    const resolved = await resolvePooler(config.DATABASE_POOLER, url);
    pooler = resolved.pooler;
    logger.info(
      { pooler, setting: config.DATABASE_POOLER, evidence: resolved.evidence },
      pooler === 'transaction'
        ? 'database pooler: transaction pooling (unnamed statements, no LISTEN)'
        : 'database pooler: none (named statements)',
    );
  }
  const db = createPool(
    url,
    config.DATABASE_POOL_MAX,
    (err) => logger.warn({ err: err.message }, 'database connection lost (the pool reconnects on demand)'),
    {
      pooler,
      onUnnamedFallback: (err) =>
        logger.warn(
          { err: err.message, code: (err as { code?: string }).code },
          'database pooler: a named statement met another server connection; using unnamed statements from now on (set DATABASE_POOLER=transaction)',
        ),
    },
  );
  try {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, 'migrations applied');
    const secret = await checkSecretFingerprint(db, secretFingerprint(master), config.ACCEPT_NEW_SECRET_KEY);
    if (secret === 'replaced')
      logger.warn(
        'ACCEPT_NEW_SECRET_KEY: a new master secret was adopted; every API key and webhook signing secret made before is invalid',
      );
  } catch (err) {
    await db.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  const redis = config.REDIS_URL
    ? createRedis(config.REDIS_URL, (err) => logger.warn({ err: err.message }, 'redis error'))
    : null;
  // Redis is never needed for stored data: start without it (limits per process, 1 s auth cache) rather than not at all.
  if (redis && !(await waitForRedis(redis, 5_000)))
    logger.warn('redis not reachable yet: running degraded until it is');
  return {
    db,
    redis,
    keyring,
    embedded,
    pooler,
    close: async () => {
      // Bounded: a connection someone never released must not keep the embedded cluster running.
      const ended = db.end().catch((err: Error) => logger.error({ err: err.message }, 'closing the pool failed'));
      if ((await Promise.race([ended.then(() => true), sleep(POOL_END_TIMEOUT_MS).then(() => false)])) === false) {
        logger.warn(
          { timeout_ms: POOL_END_TIMEOUT_MS },
          'database connections still in use at shutdown: closing without them',
        );
      }
      if (redis) await redis.quit().catch(() => redis.disconnect());
      if (embedded)
        await embedded
          .stop()
          .catch((err: Error) => logger.error({ err: err.message }, 'stopping embedded PostgreSQL failed'));
    },
  };
}
