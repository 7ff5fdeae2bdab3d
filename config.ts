import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { AllowList } from './lib/allow-list.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

/** ENCODER_PRECISION when unset (docs/decisions/0009-encoder-int8.md). */
export const DEFAULT_ENCODER_PRECISION = 'int8';

/** The environment variables: names, types, defaults. Each is described in CONFIG_DESCRIPTIONS below. */
export const configSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  DATABASE_POOL_MAX: int(1, 500).default(20),
  DATABASE_POOLER: z.enum(['auto', 'none', 'transaction']).default('auto'),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  REDIS_KEY_PREFIX: z.string().default('cf:'),
  DEPLOYMENT_MODE: z.enum(['self_hosted', 'saas']).default('self_hosted'),
  SECRET_KEY: z.preprocess(emptyAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  ACCEPT_NEW_SECRET_KEY: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  RATE_LIMIT_REQUESTS: int(1, 100_000_000).default(600_000),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60),
  RATE_LIMIT_UNAUTHENTICATED_REQUESTS: int(1, 100_000_000).default(600),
  RATE_LIMIT_SCAN_CHARS: int(1, 1_000_000_000_000).default(500_000_000),
  RATE_LIMIT_UPLOAD_REQUESTS: int(1, 100_000_000).default(60),
  API_KEY_DEFAULT_TTL_DAYS: int(1, 3650).default(90),
  AUTH_CACHE_TTL_MS: z.preprocess(emptyAsUndefined, int(0, 3_600_000).optional()),
  IDEMPOTENCY_TTL_HOURS: int(1, 168).default(24),
  POLICY_CACHE_TTL_MS: int(0, 3_600_000).default(30_000),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  TRUST_PROXY: bool.default(false),
  METRICS_ENABLED: bool.default(true),
  METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  METRICS_ALLOW: z.string().default(''),
  WORKER_THREADS: int(0, 64).default(availableParallelism()),
  WORKER_NICE: int(0, 19).default(0),
  CLUSTER_WORKERS: int(0, 64).default(0),
  POOL_QUEUE_MAX: int(1, 1_000_000).default(16_384),
  POOL_TENANT_QUEUE_MAX: int(1, 1_000_000).default(4_096),
  POOL_MAX_BATCH: int(1, 256).default(32),
  POOL_SLICE_MS: int(0, 60_000).default(5),
  POOL_RESERVED_THREADS: int(0, 63).default(1),
  SEMANTIC_WINDOW_CACHE: int(0, 65_536).default(256),
  ENCODER_PRECISION: z.enum(['fp32', 'int8']).default(DEFAULT_ENCODER_PRECISION),
  RESULT_CACHE_BYTES: int(0, 16 * 1024 * 1024 * 1024).default(32 * 1024 * 1024),
  RESULT_CACHE_TTL_SECONDS: int(1, 7 * 86_400).default(3_600),
  SCAN_DEADLINE_MS: int(10, 600_000).default(5_000),
  SCAN_MAX_TEXT_CHARS: int(1, 50_000_000).default(500_000),
  SCAN_LONG_TEXT_CHARS: int(1, 50_000_000).default(20_000),
  SCAN_SLICE_MS: int(1, 1_000).default(2),
  SCAN_LONG_PER_ORG: int(1, 1_000).default(2),
  SCAN_CONTENT_RETENTION_DAYS: int(1, 3650).default(30),
  SCAN_END_USER_ID: z.enum(['keep', 'drop']).default('keep'),
  JOBS_ENABLED: bool.default(true),
  RETENTION_BATCH_SIZE: int(1, 100_000).default(5_000),
  SCAN_WRITER_MAX_BATCH: int(1, 5_000).default(256),
  SCAN_WRITER_CONCURRENCY: int(1, 64).default(4),
  AUDIT_DETECTION_EVENTS: z.enum(['non_allowed', 'all', 'none']).default('non_allowed'),
  WEBHOOK_DELIVERY_ENABLED: bool.default(true),
  WEBHOOK_CONCURRENCY: int(1, 1_024).default(64),
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000),
  WEBHOOK_POLL_MS: int(10, 60_000).default(1_000),
  WEBHOOK_FAILING_THRESHOLD: int(1, 1_000).default(5),
  WEBHOOK_DELIVERY_RETENTION_DAYS: int(1, 3650).default(30),
  WEBHOOK_ALLOW_PRIVATE: z.string().default(''),
  WEBHOOK_UNSAFE_ALLOW_HOSTS: z.string().default(''),
  WEBHOOK_CA_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
  WEBHOOK_CA_ONLY: bool.default(false),
  MODELS_DIR: z.preprocess(emptyAsUndefined, z.string().optional()),
  EXTRA_MODELS_DIR: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  OIDC_ISSUER: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  OIDC_AUDIENCE: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  OIDC_CLOCK_TOLERANCE_SECONDS: int(0, 600).default(60),
  OIDC_FETCH_TIMEOUT_MS: int(100, 60_000).default(5_000),
  DASHBOARD_OIDC_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  DASHBOARD_OIDC_SCOPE: z.preprocess(emptyAsUndefined, z.string().min(1).default('openid profile email')),
  IDP_MANAGEMENT_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  IDP_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  IDP_CLIENT_SECRET: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  IDP_SCOPE: z.string().default(''),
  INVITE_TTL_HOURS: int(1, 24 * 90).default(168),
  PUBLIC_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  SMTP_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  SMTP_FROM: z.string().min(3).default('Content Firewall <no-reply@localhost>'),
  EVIDENCE_UPLOAD_TTL_SECONDS: int(60, 7 * 86_400).default(900),
  EVIDENCE_S3_BUCKET: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  EVIDENCE_S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  EVIDENCE_S3_REGION: z.string().min(1).default('us-east-1'),
  EVIDENCE_S3_ACCESS_KEY_ID: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  EVIDENCE_S3_SECRET_ACCESS_KEY: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  EVIDENCE_S3_FORCE_PATH_STYLE: bool.default(false),
  LEGACY_PORT: z.preprocess(emptyAsUndefined, int(0, 65535).optional()),
  LEGACY_HOST: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  LEGACY_MONTHLY_QUOTA: int(0, 1_000_000_000).default(10_000),
  LEGACY_LONG_MAX_CHARS: int(5_000, 50_000_000).default(100_000),
});

export type RawConfig = z.infer<typeof configSchema>;

/**
 * What each variable does, for operators: docs/operators/configuration.md is generated from this table and the
 * schema (`npm run config:docs`; a unit test fails while it is stale). Every variable needs an entry.
 */
export const CONFIG_DESCRIPTIONS: { readonly [K in keyof RawConfig]: string } = {
  PORT: 'HTTP port of the API, `/dashboard`, `/docs`, the probes and `/metrics` (`0`: any free port).',
  HOST: 'Listen address: loopback only by default. Set `0.0.0.0`, `::` or an interface address to accept other hosts (in a container, or behind a proxy on another host; docs/decisions/0013-safe-network-defaults.md).',
  DATABASE_URL:
    'PostgreSQL connection string (PostgreSQL 13 or later; the role must be able to create tables: migrations run at start). Unset: the embedded PostgreSQL under `DATA_DIR`.',
  DATABASE_POOL_MAX:
    'Database connections per process (the job scheduler holds one of them for `LISTEN`, except behind a transaction pooler).',
  DATABASE_POOLER:
    "What sits between the service and PostgreSQL. `transaction`: a transaction-pooling PgBouncer (or another pooler that may run each transaction on another server connection): no named prepared statements, no `LISTEN` (the job scheduler polls), nothing that outlives a transaction. `none`: a direct connection or a session-mode pooler. `auto`: probe `DATABASE_URL` at start and log the choice; a named statement that still fails as a pooler's would (26000/42P05) switches the pool to unnamed statements. The embedded database is `none` (docs/operators/pgbouncer.md).",
  DATA_DIR:
    "The embedded PostgreSQL cluster and its port/password record, `secret.key`, and local evidence files: with the temp folder's tsx compile cache, the only place the service writes. Back it up (docs/operators/backup.md).",
  REDIS_URL:
    'Redis: rate limits and scan budgets shared by every process, revocations and policy changes pushed to every process at once, the shared result cache. Unset: each process counts its own limits, and cached API keys and policies live at most 1 s.',
  REDIS_KEY_PREFIX: 'Prefix of every Redis key and channel (several deployments may share one Redis).',
  DEPLOYMENT_MODE:
    '`saas`: SSO users create organizations through the API, and `METRICS_TOKEN` is required. Reported by `/v1/me`.',
  SECRET_KEY:
    'Master secret from which the API key hashing, cursor, webhook secret, idempotency, evidence URL and redaction hash keys are derived. Every process of a deployment must share it; losing or changing it invalidates every API key, so a start with another secret than the one the database recorded is refused (`ACCEPT_NEW_SECRET_KEY`; docs/operators/backup.md).',
  ACCEPT_NEW_SECRET_KEY:
    'Adopt a master secret other than the one the database was set up with. Without it such a start is refused (the database records a fingerprint of the secret): every API key, webhook signing secret and cursor made under the old one stops working. Set it once, for that start, only when the old secret is lost for good (docs/operators/backup.md).',
  LOG_LEVEL: 'pino level. Logs are JSON lines on stdout with `request_id`; secrets are never logged.',
  BODY_LIMIT_BYTES: 'Largest JSON request body (413 beyond).',
  RATE_LIMIT_REQUESTS: 'Requests per window per API key or SSO session.',
  RATE_LIMIT_WINDOW_SECONDS: 'The window of every rate limit and budget (`RATE_LIMIT_*`).',
  RATE_LIMIT_UNAUTHENTICATED_REQUESTS:
    "Requests per window per client address without a valid credential (the address is the proxy's unless `TRUST_PROXY`).",
  RATE_LIMIT_SCAN_CHARS:
    "Characters a credential may scan per window (at least `SCAN_MAX_TEXT_CHARS`); past it, 429 `rate_limit.characters_exceeded`, and the refused scan costs nothing. Set it to a key's share of the deployment's capacity.",
  RATE_LIMIT_UPLOAD_REQUESTS:
    "Requests per window per signed evidence upload URL (its own budget, not its address's): one upload needs one PUT and a few retries.",
  API_KEY_DEFAULT_TTL_DAYS: 'Expiry of a key created with neither `expires_at` nor `no_expiry`.',
  AUTH_CACHE_TTL_MS:
    'How long a credential lookup is cached per process. At most 1000 without `REDIS_URL` (revocations must reach every process within 1 s); with Redis they are pushed at once.',
  IDEMPOTENCY_TTL_HOURS: 'How long `Idempotency-Key` records are kept.',
  POLICY_CACHE_TTL_MS:
    'How long a process serves a cached policy before reading it again. Changes reach every process at once over Redis; without `REDIS_URL` a cached policy lives at most 1 s.',
  SHUTDOWN_TIMEOUT_MS:
    'Longest drain on SIGTERM/SIGINT (requests in flight, running jobs) before open connections are closed.',
  TRUST_PROXY:
    'Take the client address from `X-Forwarded-For` (its first entry): only behind a proxy that overwrites that header. It keys the unauthenticated rate limit and the `/metrics` wrong-token budget.',
  METRICS_ENABLED: 'Serve Prometheus metrics at `/metrics`.',
  METRICS_TOKEN:
    'When set (at least 16 characters), `/metrics` requires `Authorization: Bearer <token>` from every address, loopback included; required in `saas` mode. An address that sends 10 wrong tokens in 60 s is refused (429) until the window ends. Unset: `/metrics` answers loopback peers and `METRICS_ALLOW` only (403 `metrics.forbidden`).',
  METRICS_ALLOW:
    "Without `METRICS_TOKEN`: addresses and CIDRs (comma-separated, no host names) besides loopback that may scrape `/metrics`, judged by the connection's own peer address; a request carrying `Forwarded`, `X-Forwarded-For` or `X-Real-IP` never counts. Not allowed together with `METRICS_TOKEN`.",
  WORKER_THREADS:
    'Model threads (one onnxruntime session per model per thread). `0`: no pool, fast tier only, no toxicity or NER. In cluster mode the default is the CPU count divided by the processes.',
  WORKER_NICE:
    "Nice value of the model threads (Linux, per thread; `0`: as the process). Above 0 the event loop goes first when inference keeps every core busy, but every scan's own inference waits too (docs/performance.md, Fair sharing).",
  CLUSTER_WORKERS:
    'Cluster mode: this many processes share the port (same as `npm start -- --cluster N`); `0` runs one process.',
  POOL_QUEUE_MAX:
    'Model request pieces allowed to wait, all organizations together; beyond it scans answer 503 `service.overloaded`.',
  POOL_TENANT_QUEUE_MAX:
    "Model request pieces one organization may have waiting; beyond it that organization's scans answer 503 (the others' go on).",
  POOL_MAX_BATCH: 'Texts per inference task (micro-batching of waiting requests).',
  POOL_SLICE_MS:
    "Milliseconds of inference a piece of a model request aims at: long requests are cut into such slices, with other organizations' requests served between them (`0`: never cut).",
  POOL_RESERVED_THREADS:
    'Model threads one organization may not take while another has used the pool within the last second, kept free for the others (at most `WORKER_THREADS` − 1; `0`: none).',
  SEMANTIC_WINDOW_CACHE:
    'Window embeddings each model thread keeps for its sentence-encoder heads, about 2 KB each (`0`: no cache).',
  ENCODER_PRECISION:
    'Weights of the sentence encoder each model thread builds: `int8` (quantised; ~2.2× faster per window on AVX-512 VNNI CPUs, ~75 MB less per thread) or `fp32` (as shipped). docs/decisions/0009-encoder-int8.md.',
  RESULT_CACHE_BYTES:
    'Detector results of repeated texts kept per process, by approximate size (`0`: no result cache); with `REDIS_URL` also shared through Redis. The decision is always made afresh with the current policy.',
  RESULT_CACHE_TTL_SECONDS: 'How long a result stays in Redis (the in-process level is bounded by size only).',
  SCAN_DEADLINE_MS: 'Model inference deadline per scan; past it, 504 `scans.deadline_exceeded`.',
  SCAN_MAX_TEXT_CHARS: 'Longest text a scan accepts (longer is 400, never truncated).',
  SCAN_LONG_TEXT_CHARS:
    'A text at least this long is scanned paced: its in-process detection runs in slices of `SCAN_SLICE_MS`, organizations in turn, so the process keeps answering everything else.',
  SCAN_SLICE_MS: "Main-thread milliseconds per slice of a long text's scan.",
  SCAN_LONG_PER_ORG:
    'Long scans one organization may have in progress per process; more wait their turn (up to their deadline; past 64 waiting, 503).',
  SCAN_CONTENT_RETENTION_DAYS:
    'How long captured scan content (`options.capture`) is kept; the retention job clears it within 10 minutes after.',
  JOBS_ENABLED:
    'Whether this process runs scheduled jobs (retention, cleanup, analytics roll-up). Any number of processes may: each run happens in one of them.',
  RETENTION_BATCH_SIZE: 'Rows per statement in the retention jobs, so locks stay short.',
  SCAN_END_USER_ID:
    "A scan's `context.end_user_id`: `keep` stores it and returns it as submitted, next to `end_user_id_hash` (the spec); `drop` stores and returns only the hash (`end_user_id` null), for deployments that must not hold end-user ids.",
  SCAN_WRITER_MAX_BATCH: 'Group commit: scans per transaction.',
  SCAN_WRITER_CONCURRENCY: 'Group commit: transactions in flight per process.',
  AUDIT_DETECTION_EVENTS:
    'Which scans write a `detection` audit event: `non_allowed` (effective action not `allowed`), `all`, or `none`.',
  WEBHOOK_DELIVERY_ENABLED:
    'Whether this process sends webhook deliveries (every process may: they share the outbox through row locks).',
  WEBHOOK_CONCURRENCY: 'Webhook attempts in flight per process.',
  WEBHOOK_TIMEOUT_MS: "One attempt's limit: connect, TLS, request and response headers, and the 1 KiB body preview.",
  WEBHOOK_POLL_MS:
    'How often a process looks for due retries (new events are sent at once by the process that stored them).',
  WEBHOOK_FAILING_THRESHOLD:
    "`webhook.failing` is emitted when a webhook's consecutive failed attempts reach this number.",
  WEBHOOK_DELIVERY_RETENTION_DAYS:
    'Finished deliveries (succeeded, dead-lettered) are deleted this long after they were created (hourly job).',
  WEBHOOK_ALLOW_PRIVATE:
    'Self-hosted only (refused in `saas` mode): internal receivers webhooks may reach despite the private-address refusal, comma- or space-separated: CIDRs, addresses, host names (single-label too) and host suffixes (`.corp.example`). Checked at registration and again at delivery. Cloud metadata names and addresses and all of link-local stay refused whatever it says (docs/webhooks.md, Internal receivers).',
  WEBHOOK_UNSAFE_ALLOW_HOSTS:
    'Deprecated older name of `WEBHOOK_ALLOW_PRIVATE`: its entries are added to it (a warning is logged at start).',
  WEBHOOK_CA_FILE:
    "A PEM bundle of CA certificates trusted for webhook TLS in addition to Node's bundled roots (an internal CA); checked at start.",
  WEBHOOK_CA_ONLY: 'With `WEBHOOK_CA_FILE`: trust that bundle instead of the bundled roots.',
  MODELS_DIR: 'Where `manifest.json` and the model files are read from (sha256-checked at load).',
  EXTRA_MODELS_DIR:
    "Operator-supplied Hugging Face classifiers exported to ONNX: the folder holding `models.json` and one folder per model (docs/operators/extra-models.md). Every declared file is sha256-checked at start (a mismatch refuses the start); each model is loaded on every model thread, and a calibrated text classifier is stacked onto its detector's `accurate` tier (and `auto` when undecided), a token classifier's entities join `pii`. Unset: none.",
  OIDC_ISSUER:
    "SSO session tokens, the dashboard's credential: the OIDC issuer that signs them (docs/identity.md). Unset: only API keys authenticate.",
  OIDC_AUDIENCE: 'The audience SSO session tokens carry for this service (required with `OIDC_ISSUER`).',
  OIDC_CLOCK_TOLERANCE_SECONDS: "Clock skew allowed when checking a session token's times.",
  OIDC_FETCH_TIMEOUT_MS: 'Bound on each request to the issuer or its management API (discovery, keys, tokens, calls).',
  DASHBOARD_OIDC_CLIENT_ID:
    "The dashboard's public client id at `OIDC_ISSUER` (authorization code with PKCE, in a popup). Unset: the dashboard takes API keys only (docs/dashboard.md).",
  DASHBOARD_OIDC_SCOPE: "The scope the dashboard's SSO sign-in asks for.",
  IDP_MANAGEMENT_URL:
    "SaaS mode: the issuer's management API, where organizations and memberships live (docs/identity.md). Unset: the built-in provider keeps them in this database.",
  IDP_CLIENT_ID:
    'The client the management API calls authenticate as (client-credentials grant; with `IDP_MANAGEMENT_URL`).',
  IDP_CLIENT_SECRET: "That client's secret.",
  IDP_SCOPE: "The scope of the management API's client-credentials token.",
  INVITE_TTL_HOURS: 'How long an invite can be accepted.',
  PUBLIC_URL: 'Where people reach this deployment: the base of invite accept URLs and of local evidence upload URLs.',
  SMTP_URL: 'Optional invite email: a nodemailer SMTP URL (`smtp://user:pass@host:587`, `smtps://…`).',
  SMTP_FROM: 'The sender of invite email.',
  EVIDENCE_UPLOAD_TTL_SECONDS: 'How long an evidence upload URL stays valid.',
  EVIDENCE_S3_BUCKET:
    'An S3-compatible bucket for evidence files. Unset: they go under `DATA_DIR/evidence` (docs/evidence.md).',
  EVIDENCE_S3_ENDPOINT: 'The S3-compatible server (unset: AWS S3).',
  EVIDENCE_S3_REGION: "The bucket's region.",
  EVIDENCE_S3_ACCESS_KEY_ID:
    "S3 credentials, with `EVIDENCE_S3_SECRET_ACCESS_KEY` (both or neither; neither: the AWS SDK's default chain).",
  EVIDENCE_S3_SECRET_ACCESS_KEY: 'See `EVIDENCE_S3_ACCESS_KEY_ID`.',
  EVIDENCE_S3_FORCE_PATH_STYLE: 'Path-style bucket URLs (most S3-compatible servers other than AWS).',
  LEGACY_PORT:
    'The legacy analysis API (`POST /v1/analysis/{analysis_id}`, docs/legacy.md) on a listener of its own; off while unset (`0`: any free port).',
  LEGACY_HOST: 'Listen address of the legacy analysis API.',
  LEGACY_MONTHLY_QUOTA:
    "Legacy requests per organization per calendar month (UTC), unless the operator set the organization's own (`npx content-firewall orgs set-legacy-quota`).",
  LEGACY_LONG_MAX_CHARS:
    'The most characters a legacy request with `long_prompt_injection=true` may send (standard requests: 5000).',
};

/** Defaults the schema computes or leaves to the code that reads the variable, in words (docs/operators/configuration.md). */
export const CONFIG_DEFAULTS_IN_WORDS: Partial<Record<keyof RawConfig, string>> = {
  SECRET_KEY: '`DATA_DIR/secret.key` (generated on first start)',
  AUTH_CACHE_TTL_MS: '`1000`, or `30000` with `REDIS_URL`',
  WORKER_THREADS: 'the CPU count (cluster mode: divided among the processes)',
  MODELS_DIR: "the repository's `models/`",
  PUBLIC_URL: '`http://localhost:PORT`',
  LEGACY_HOST: '`HOST`',
};

export interface Config extends Omit<RawConfig, 'AUTH_CACHE_TTL_MS'> {
  /** Resolved absolute data directory. */
  readonly DATA_DIR: string;
  /**
   * How long an API key lookup is cached. Without Redis nothing tells other processes of a
   * revocation, so the cache lives at most 1 s; with Redis, revocations are published and the
   * cache may live longer.
   */
  readonly AUTH_CACHE_TTL_MS: number;
}

/** Thrown when the environment does not describe a valid configuration; lists every problem. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
  }
}

/**
 * Parses and freezes the configuration from `env`.
 * @throws ConfigError listing every invalid variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const raw = parsed.data;
  const authTtl = raw.AUTH_CACHE_TTL_MS ?? (raw.REDIS_URL ? 30_000 : 1_000);
  if (!raw.REDIS_URL && authTtl > 1_000) {
    throw new ConfigError([
      'AUTH_CACHE_TTL_MS: must be at most 1000 without REDIS_URL (revocations must reach every process within 1 s)',
    ]);
  }
  const networkIssues = networkConfigIssues(raw);
  if (networkIssues.length) throw new ConfigError(networkIssues);
  const evidence = [raw.EVIDENCE_S3_ACCESS_KEY_ID, raw.EVIDENCE_S3_SECRET_ACCESS_KEY];
  if (evidence.some(Boolean) && !evidence.every(Boolean))
    throw new ConfigError(['EVIDENCE_S3_ACCESS_KEY_ID, EVIDENCE_S3_SECRET_ACCESS_KEY: set both or neither']);
  if ((raw.EVIDENCE_S3_ENDPOINT || evidence.some(Boolean)) && !raw.EVIDENCE_S3_BUCKET)
    throw new ConfigError(['EVIDENCE_S3_BUCKET: required with the other EVIDENCE_S3_* variables']);
  const identityIssues = identityConfigIssues(raw);
  if (identityIssues.length) throw new ConfigError(identityIssues);
  if (raw.RATE_LIMIT_SCAN_CHARS < raw.SCAN_MAX_TEXT_CHARS)
    throw new ConfigError([
      `RATE_LIMIT_SCAN_CHARS: must be at least SCAN_MAX_TEXT_CHARS (${raw.SCAN_MAX_TEXT_CHARS}), or the largest scan could never pass`,
    ]);
  if (raw.DEPLOYMENT_MODE === 'saas' && raw.METRICS_ENABLED && !raw.METRICS_TOKEN) {
    throw new ConfigError([
      'METRICS_TOKEN: required in saas mode while METRICS_ENABLED (metrics span every organization)',
    ]);
  }
  return Object.freeze({
    ...raw,
    DATA_DIR: path.resolve(raw.DATA_DIR),
    AUTH_CACHE_TTL_MS: authTtl,
    MODELS_DIR: raw.MODELS_DIR ? path.resolve(raw.MODELS_DIR) : undefined,
    EXTRA_MODELS_DIR: raw.EXTRA_MODELS_DIR ? path.resolve(raw.EXTRA_MODELS_DIR) : undefined,
  });
}

/** The webhook allow list and CA bundle, and who may scrape /metrics. */
function networkConfigIssues(raw: RawConfig): string[] {
  const issues: string[] = [];
  const lists = [
    ['WEBHOOK_ALLOW_PRIVATE', raw.WEBHOOK_ALLOW_PRIVATE, true],
    ['WEBHOOK_UNSAFE_ALLOW_HOSTS', raw.WEBHOOK_UNSAFE_ALLOW_HOSTS, true],
    ['METRICS_ALLOW', raw.METRICS_ALLOW, false],
  ] as const;
  for (const [name, value, hosts] of lists) {
    try {
      AllowList.parse(value, { hosts });
    } catch (err) {
      issues.push(`${name}: ${(err as Error).message}`);
    }
  }
  if (raw.DEPLOYMENT_MODE === 'saas') {
    for (const name of ['WEBHOOK_ALLOW_PRIVATE', 'WEBHOOK_UNSAFE_ALLOW_HOSTS'] as const)
      if (raw[name].trim()) issues.push(`${name}: self-hosted only (in saas mode every organization could reach them)`);
  }
  if (raw.WEBHOOK_CA_FILE) {
    const problem = caFileProblem(raw.WEBHOOK_CA_FILE);
    if (problem) issues.push(`WEBHOOK_CA_FILE: ${raw.WEBHOOK_CA_FILE} ${problem}`);
  } else if (raw.WEBHOOK_CA_ONLY) {
    issues.push('WEBHOOK_CA_ONLY: needs WEBHOOK_CA_FILE (else no certificate would be trusted)');
  }
  if (raw.METRICS_TOKEN && raw.METRICS_ALLOW.trim())
    issues.push('METRICS_ALLOW: unused with METRICS_TOKEN, which every address must send; set one or the other');
  return issues;
}

function caFileProblem(file: string): string | null {
  if (!existsSync(file)) return 'does not exist';
  try {
    return readFileSync(file, 'utf8').includes('-----BEGIN CERTIFICATE-----') ? null : 'holds no PEM certificate';
  } catch (err) {
    return `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

/** The SSO and identity-provider variables that only make sense together. */
function identityConfigIssues(raw: RawConfig): string[] {
  const issues: string[] = [];
  if (raw.OIDC_ISSUER && !raw.OIDC_AUDIENCE) issues.push('OIDC_AUDIENCE: required with OIDC_ISSUER');
  if (raw.OIDC_AUDIENCE && !raw.OIDC_ISSUER) issues.push('OIDC_ISSUER: required with OIDC_AUDIENCE');
  if (raw.DASHBOARD_OIDC_CLIENT_ID && !raw.OIDC_ISSUER)
    issues.push('OIDC_ISSUER: required with DASHBOARD_OIDC_CLIENT_ID');
  const idp = [raw.IDP_MANAGEMENT_URL, raw.IDP_CLIENT_ID, raw.IDP_CLIENT_SECRET];
  if (idp.some(Boolean) && !idp.every(Boolean)) {
    issues.push('IDP_MANAGEMENT_URL, IDP_CLIENT_ID, IDP_CLIENT_SECRET: set all three or none');
  }
  if (raw.IDP_MANAGEMENT_URL && !raw.OIDC_ISSUER) issues.push('OIDC_ISSUER: required with IDP_MANAGEMENT_URL');
  if (raw.IDP_MANAGEMENT_URL && raw.DEPLOYMENT_MODE !== 'saas') {
    issues.push('IDP_MANAGEMENT_URL: only in saas mode (self-hosted installs use the built-in provider)');
  }
  return issues;
}

/**
 * For entry points: the configuration, or null after printing every problem to stderr (the caller
 * exits 1).
 */
export function loadConfigOrReport(env: NodeJS.ProcessEnv = process.env): Readonly<Config> | null {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return null;
  }
}
