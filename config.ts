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

const schema = z.object({
  PORT: int(0, 65535).default(8080),
  // Listen address: loopback unless the operator opens it (0.0.0.0 in a container or behind a proxy on
  // another host; docs/decisions/0013-safe-network-defaults.md).
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  DATABASE_POOL_MAX: int(1, 500).default(20),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  REDIS_KEY_PREFIX: z.string().default('cf:'),
  DEPLOYMENT_MODE: z.enum(['self_hosted', 'saas']).default('self_hosted'),
  SECRET_KEY: z.preprocess(emptyAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  RATE_LIMIT_REQUESTS: int(1, 100_000_000).default(600_000),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60),
  RATE_LIMIT_UNAUTHENTICATED_REQUESTS: int(1, 100_000_000).default(600),
  // Characters a credential may scan per window (services/scan-budget.ts): at least SCAN_MAX_TEXT_CHARS.
  RATE_LIMIT_SCAN_CHARS: int(1, 1_000_000_000_000).default(500_000_000),
  // Per signed evidence upload URL (its own budget, not its address's): one upload needs one PUT and a few retries.
  RATE_LIMIT_UPLOAD_REQUESTS: int(1, 100_000_000).default(60),
  API_KEY_DEFAULT_TTL_DAYS: int(1, 3650).default(90),
  AUTH_CACHE_TTL_MS: z.preprocess(emptyAsUndefined, int(0, 3_600_000).optional()),
  IDEMPOTENCY_TTL_HOURS: int(1, 168).default(24),
  // How long a process serves a cached policy before reloading it (changes are pushed at once over
  // Redis; without REDIS_URL a cached policy lives at most 1 s whatever this says).
  POLICY_CACHE_TTL_MS: int(0, 3_600_000).default(30_000),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  TRUST_PROXY: bool.default(false),
  METRICS_ENABLED: bool.default(true),
  METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  // Without METRICS_TOKEN, /metrics answers loopback clients and these addresses/CIDRs only (requests a
  // proxy forwarded never count as local). With METRICS_TOKEN the token is required from every address.
  METRICS_ALLOW: z.string().default(''),
  WORKER_THREADS: int(0, 64).default(availableParallelism()),
  // Nice value of the model threads (Linux: per thread; 0 = as the process): above 0 the event loop goes
  // first when inference keeps every core busy — and every organization's inference waits (bench:fairness).
  WORKER_NICE: int(0, 19).default(0),
  // Cluster mode: this many processes share the port (also `npm start -- --cluster N`); 0 = one process.
  CLUSTER_WORKERS: int(0, 64).default(0),
  // Model request pieces (slices) allowed to wait, all organizations together, and one organization alone.
  POOL_QUEUE_MAX: int(1, 1_000_000).default(16_384),
  POOL_TENANT_QUEUE_MAX: int(1, 1_000_000).default(4_096),
  POOL_MAX_BATCH: int(1, 256).default(32),
  // Milliseconds of inference a piece of a model request aims at: long requests are cut into such slices,
  // so other organizations' requests get a thread between them (0 = never cut).
  POOL_SLICE_MS: int(0, 60_000).default(5),
  // Model threads one organization may not take while another has used the pool within the last second
  // (kept free for the others' requests; never all of them; 0 = none).
  POOL_RESERVED_THREADS: int(0, 63).default(1),
  // Window embeddings each model thread keeps, shared by its sentence-encoder heads (0 = no cache).
  SEMANTIC_WINDOW_CACHE: int(0, 65_536).default(256),
  // Weights of the sentence encoder the model threads build (docs/decisions/0009-encoder-int8.md): fp32 as
  // shipped, or int8 (weight matrices quantised per output channel, activations per window at run time).
  ENCODER_PRECISION: z.enum(['fp32', 'int8']).default(DEFAULT_ENCODER_PRECISION),
  // Detector results of repeated texts kept in this process, by approximate size (0 = no result cache):
  // services/result-cache.ts. With REDIS_URL they are also shared through Redis for RESULT_CACHE_TTL_SECONDS.
  RESULT_CACHE_BYTES: int(0, 16 * 1024 * 1024 * 1024).default(32 * 1024 * 1024),
  RESULT_CACHE_TTL_SECONDS: int(1, 7 * 86_400).default(3_600),
  SCAN_DEADLINE_MS: int(10, 600_000).default(5_000),
  SCAN_MAX_TEXT_CHARS: int(1, 50_000_000).default(500_000),
  // A text of at least SCAN_LONG_TEXT_CHARS is scanned in slices of SCAN_SLICE_MS of main-thread work with the
  // event loop turning between them, and an organization may have SCAN_LONG_PER_ORG such scans in progress
  // per process (more wait their turn, up to their deadline).
  SCAN_LONG_TEXT_CHARS: int(1, 50_000_000).default(20_000),
  SCAN_SLICE_MS: int(1, 1_000).default(2),
  SCAN_LONG_PER_ORG: int(1, 1_000).default(2),
  SCAN_CONTENT_RETENTION_DAYS: int(1, 3650).default(30),
  // Whether this process runs scheduled jobs (Agenda). Any number of processes may: each run happens once.
  JOBS_ENABLED: bool.default(true),
  // Rows per statement in the retention jobs (scan content expiry, idempotency cleanup): short locks.
  RETENTION_BATCH_SIZE: int(1, 100_000).default(5_000),
  SCAN_WRITER_MAX_BATCH: int(1, 5_000).default(256),
  SCAN_WRITER_CONCURRENCY: int(1, 64).default(4),
  // Which scans write a detection audit event: non_allowed (effective action not `allowed`), all, none.
  AUDIT_DETECTION_EVENTS: z.enum(['non_allowed', 'all', 'none']).default('non_allowed'),
  // Outbound webhooks (docs/webhooks.md). Whether this process sends deliveries (every process may:
  // they share the outbox through row locks).
  WEBHOOK_DELIVERY_ENABLED: bool.default(true),
  // Attempts in flight per process.
  WEBHOOK_CONCURRENCY: int(1, 1_024).default(64),
  // One attempt's limit: connect, TLS, request and response headers, and the 1 KiB body preview.
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000),
  // How often a process looks for due retries (new events are sent at once by the process that stored them).
  WEBHOOK_POLL_MS: int(10, 60_000).default(1_000),
  // webhook.failing is emitted when a webhook's consecutive failed attempts reach this number.
  WEBHOOK_FAILING_THRESHOLD: int(1, 1_000).default(5),
  // Finished deliveries (succeeded, dead-lettered) are deleted this long after they were created.
  WEBHOOK_DELIVERY_RETENTION_DAYS: int(1, 3650).default(30),
  // Self-hosted only: internal receivers webhooks may reach despite the private-address refusal — CIDRs,
  // addresses, host names and host suffixes (`.corp.example`). Cloud metadata and link-local addresses
  // stay refused whatever it says. Empty by default (docs/webhooks.md, Internal receivers).
  WEBHOOK_ALLOW_PRIVATE: z.string().default(''),
  // Deprecated older spelling of WEBHOOK_ALLOW_PRIVATE (tests set it): its entries are added to it.
  WEBHOOK_UNSAFE_ALLOW_HOSTS: z.string().default(''),
  // CA certificates (a PEM bundle) trusted for webhook TLS in addition to Node's bundled roots, or
  // instead of them with WEBHOOK_CA_ONLY (an internal CA).
  WEBHOOK_CA_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
  WEBHOOK_CA_ONLY: bool.default(false),
  MODELS_DIR: z.preprocess(emptyAsUndefined, z.string().optional()),
  // SSO session tokens, the dashboard's credential (docs/identity.md): the OIDC issuer that signs them and
  // the audience they carry for this service. Without OIDC_ISSUER only API keys authenticate.
  OIDC_ISSUER: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  OIDC_AUDIENCE: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  OIDC_CLOCK_TOLERANCE_SECONDS: int(0, 600).default(60),
  // Bound on each request to the issuer or its management API (discovery, keys, tokens, calls).
  OIDC_FETCH_TIMEOUT_MS: int(100, 60_000).default(5_000),
  // The dashboard's SSO sign-in (docs/dashboard.md): its public client id at OIDC_ISSUER (authorization code
  // with PKCE, in a popup) and the scope it asks for. Without the client id the dashboard takes API keys only.
  DASHBOARD_OIDC_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  DASHBOARD_OIDC_SCOPE: z.preprocess(emptyAsUndefined, z.string().min(1).default('openid profile email')),
  // SaaS mode: the issuer's management API, where organizations and memberships live (docs/identity.md
  // gives the contract), and the client its calls authenticate as (client-credentials grant). Without
  // it the built-in local provider keeps organizations and members in our database only.
  IDP_MANAGEMENT_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  IDP_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  IDP_CLIENT_SECRET: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  IDP_SCOPE: z.string().default(''),
  // How long an invite can be accepted.
  INVITE_TTL_HOURS: int(1, 24 * 90).default(168),
  // Where people reach this deployment: the base of invite accept URLs (default http://localhost:PORT).
  PUBLIC_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  // Optional invite email: a nodemailer SMTP URL (smtp://user:pass@host:587, smtps://…) and the sender.
  SMTP_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  SMTP_FROM: z.string().min(3).default('Content Firewall <no-reply@localhost>'),
  // Evidence uploads (docs/evidence.md): how long an upload URL stays valid, and the optional
  // S3-compatible bucket (without it, files go under DATA_DIR/evidence).
  EVIDENCE_UPLOAD_TTL_SECONDS: int(60, 7 * 86_400).default(900),
  EVIDENCE_S3_BUCKET: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  EVIDENCE_S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  EVIDENCE_S3_REGION: z.string().min(1).default('us-east-1'),
  EVIDENCE_S3_ACCESS_KEY_ID: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  EVIDENCE_S3_SECRET_ACCESS_KEY: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  EVIDENCE_S3_FORCE_PATH_STYLE: bool.default(false),
  // The legacy analysis API (docs/legacy.md): its own listener, off unless LEGACY_PORT is set; LEGACY_HOST
  // defaults to HOST.
  LEGACY_PORT: z.preprocess(emptyAsUndefined, int(0, 65535).optional()),
  LEGACY_HOST: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  // Legacy requests an organization may make per calendar month (UTC) unless the operator set its own.
  LEGACY_MONTHLY_QUOTA: int(0, 1_000_000_000).default(10_000),
  // The most characters a long_prompt_injection=true request may send (standard requests: 5000).
  LEGACY_LONG_MAX_CHARS: int(5_000, 50_000_000).default(100_000),
});

export type RawConfig = z.infer<typeof schema>;

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
  const parsed = schema.safeParse(env);
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
