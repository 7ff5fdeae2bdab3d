import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, inject } from 'vitest';
import { startApplication, type Application } from '../../server/application.ts';
import type { AppDeps } from '../../api/context.ts';
import { loadConfig, type Config } from '../../config.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { buildKeyring } from '../../lib/crypto.ts';
import { createLogger } from '../../lib/logger.ts';
import { createRedis, waitForRedis, type Redis } from '../../lib/redis.ts';
import { createApiKey, type CreateKeyInput } from '../../services/api-keys.ts';
import { createOrganization } from '../../services/organizations.ts';
import { createPool, type Db } from '../../store/db.ts';
import { resolvePooler, type Pooler } from '../../store/pooler.ts';
import { createMetrics } from '../../lib/metrics.ts';
import { startScanning, type Scanning } from '../../server/scanning.ts';
import { startJobs, type Jobs } from '../../jobs/scheduler.ts';
import { buildLegacyApp } from '../../api/legacy/app.ts';
import { serverOptions } from '../../api/base-app.ts';
import { openApiDocument } from '../../api/openapi/document.ts';
import { Contract } from './contract.ts';

// Shared by every app in a run, as it is by every process of one deployment.
export const TEST_MASTER_SECRET = 'test-master-secret-0123456789abcdef';
const MASTER_SECRET = Buffer.from(TEST_MASTER_SECRET);

export interface TestApp {
  built: Application;
  scanning: Scanning;
  db: Db;
  redis: Redis | null;
  config: Readonly<Config>;
  baseUrl: string;
  /** The legacy analysis API's listener (`legacy: true`), else null. */
  legacyBaseUrl: string | null;
  /** The job scheduler, when started with `jobs: true` (else null). */
  jobs: Jobs | null;
  /** Every response checked against the app's OpenAPI document (test/support/contract.ts). */
  contract: Contract;
  /** Stops everything; then throws if a response broke the OpenAPI document. */
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Use Redis (REDIS_URL) with this key prefix. */
  redisPrefix?: string;
  /** With `redisPrefix`: this Redis instead of the run's shared one (a fault test's own `redis-server`). */
  redisUrl?: string;
  /** REDIS_URL points at a dead port on purpose: don't wait for it. */
  redisDown?: boolean;
  /** Collect every log line here (set LOG_LEVEL in env to see them). */
  logLines?: string[];
  /** Let tests kill a model worker thread. */
  allowCrashTask?: boolean;
  /** Start the job scheduler (Agenda) on the test database with the app's clock; stopped by close(). */
  jobs?: boolean;
  /** Resolvers behind the webhook URL checks (registration, delivery), instead of DNS. */
  webhookDns?: AppDeps['webhookDns'];
  /** Also serve the legacy analysis API on a free port of its own (`legacyBaseUrl`). */
  legacy?: boolean;
}

/**
 * A database of its own, copied from the run's migrated template, for tests whose background work
 * spans organizations (the webhook pump claims every organization's due deliveries): apps on the
 * shared database would otherwise pick up each other's rows. Dropped with the run.
 */
export async function isolatedDatabase(): Promise<string> {
  return pooledUrl(await isolatedDirectDatabase());
}

/**
 * `url` as the run's apps reach it: through the run's PgBouncer in a `npm run test:pgbouncer` run
 * (test/global-setup.ts), else unchanged.
 */
export function pooledUrl(url: string): string {
  const port = inject('pgbouncerPort');
  if (!port) return url;
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** DATABASE_POOLER of the run's apps (`transaction` in a `npm run test:pgbouncer` run): for pools a test makes itself. */
export function testPooler(): Pooler {
  return inject('databasePooler') === 'transaction' ? 'transaction' : 'none';
}

/** isolatedDatabase on the PostgreSQL server itself, never through PgBouncer. */
export async function isolatedDirectDatabase(): Promise<string> {
  const template = new URL(inject('templateDatabaseUrl'));
  const name = `${template.pathname.slice(1).replace(/_tpl$/, '')}_iso_${randomBytes(4).toString('hex')}`;
  const server = new URL(template);
  server.pathname = '/postgres';
  const admin = new pg.Client(server.toString());
  await admin.connect();
  try {
    // Copies of one template at once would collide on its lock: retry briefly.
    for (let i = 0; ; i++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template.pathname.slice(1)}`);
        break;
      } catch (err) {
        if (i >= 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(template);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A real app on the run's real database, listening on a free port. */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const env: Record<string, string> = {
    DATABASE_URL: inject('databaseUrl'),
    DATABASE_POOLER: inject('databasePooler'),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_REQUESTS: '1000000',
    RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '1000000',
    METRICS_ENABLED: 'false',
    // Most tests need no model pool: the in-process detectors only. Scan tests ask for threads.
    WORKER_THREADS: '0',
    ...(opts.redisPrefix ? { REDIS_URL: opts.redisUrl ?? inject('redisUrl'), REDIS_KEY_PREFIX: opts.redisPrefix } : {}),
    ...opts.env,
  };
  const config = loadConfig(env);
  const sink = opts.logLines;
  const logger = createLogger(
    config.LOG_LEVEL,
    sink ? new Writable({ write: (chunk, _enc, done) => (sink.push(String(chunk)), done()) }) : undefined,
  );
  // As the server does (server/runtime.ts): DATABASE_POOLER, `auto` probed.
  const { pooler } = await resolvePooler(config.DATABASE_POOLER, config.DATABASE_URL!);
  const db = createPool(config.DATABASE_URL!, 5, () => undefined, { pooler });
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL, () => undefined) : null;
  const metrics = createMetrics(config.METRICS_ENABLED);
  const scanning = await startScanning(config, metrics, logger, { allowCrashTask: opts.allowCrashTask ?? false });
  const built = startApplication({
    config,
    db,
    redis,
    clock: opts.clock ?? systemClock,
    logger,
    keyring: buildKeyring(MASTER_SECRET),
    engine: scanning.engine,
    metrics,
    webhookDns: opts.webhookDns,
  });
  if (redis && !opts.redisDown) {
    if (!(await waitForRedis(redis, 5_000))) throw new Error('test redis not ready');
    const deadline = Date.now() + 5_000;
    while (!built.services.revocations.crossProcess()) {
      if (Date.now() > deadline) throw new Error('revocation subscriber not live');
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const contract = new Contract(openApiDocument(built.routeTable));
  const server = http.createServer(serverOptions(built.app), contract.wrap(built.app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const legacyApp = opts.legacy ? buildLegacyApp(built.services) : null;
  const legacy = legacyApp ? http.createServer(serverOptions(legacyApp), legacyApp) : null;
  if (legacy) await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', resolve));
  const jobs = opts.jobs ? await startJobs({ db, clock: built.services.clock, logger, metrics, config }) : null;
  return {
    built,
    scanning,
    db,
    redis,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    legacyBaseUrl: legacy ? `http://127.0.0.1:${(legacy.address() as AddressInfo).port}` : null,
    jobs,
    contract,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      legacy?.closeAllConnections();
      if (legacy) await new Promise<void>((resolve) => legacy.close(() => resolve()));
      await jobs?.stop();
      await built.close();
      await scanning.close();
      await db.end();
      redis?.disconnect();
      contract.assertClean();
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  key?: string;
  json?: unknown;
  /** Raw body, sent as is (with `contentType`, default application/json). */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * startTestApp for a test file whose tests open several apps (processes of one deployment): each app
 * is closed after the test that opened it.
 */
export function appsClosedAfterEach(): typeof startTestApp {
  const opened: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((a) => a.close()));
  });
  return async (opts) => {
    const app = await startTestApp(opts);
    opened.push(app);
    return app;
  };
}

/** One HTTP call; parses JSON and problem+json bodies. */
export async function call(app: TestApp, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  let body: string | undefined;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] ??= 'application/json';
  } else if (o.raw !== undefined) {
    body = o.raw;
    headers['content-type'] ??= o.contentType ?? 'application/json';
  }
  const res = await fetch(`${app.baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export interface TestOrg {
  orgId: string;
  /** An admin key's secret. */
  admin: string;
  adminId: string;
}

/** A new organization with an admin key. */
export async function buildOrg(app: TestApp, name = `Org ${randomBytes(4).toString('hex')}`): Promise<TestOrg> {
  const org = await createOrganization(app.db, app.built.services.clock, name);
  const { key, secret } = await buildApiKey(app, org.id, { scopes: ['admin'] });
  return { orgId: org.id, admin: secret, adminId: key.id };
}

/** A key in `orgId`, minted through the same service the API uses. */
export async function buildApiKey(app: TestApp, orgId: string, input: Partial<CreateKeyInput> = {}) {
  return createApiKey(
    app.built.services.apiKeys,
    orgId,
    { name: 'test key', scopes: ['admin'], environment: 'live', ...input },
    { id: 'test', requestId: null },
  );
}

/** Asserts the shape every error shares. */
export function expectProblem(r: Reply, status: number, code: string): void {
  if (r.status !== status || r.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${r.text.slice(0, 400)}`);
  }
  const ct = r.headers.get('content-type') ?? '';
  if (!ct.startsWith('application/problem+json')) throw new Error(`content-type ${ct}`);
  for (const f of ['type', 'title', 'status', 'code', 'detail', 'instance']) {
    if (!(f in r.body)) throw new Error(`problem lacks ${f}: ${r.text}`);
  }
}
