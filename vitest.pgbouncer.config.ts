import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:pgbouncer`: a representative part of the integration suite with DATABASE_URL through a
 * real PgBouncer in transaction pooling mode (test/global-setup.ts, TEST_PGBOUNCER=1) and
 * DATABASE_POOLER=transaction. Not the whole suite: on a 2-core CI machine it runs far past the
 * ~5 minutes a second pass may take. These files cover every database path a pooler can break: the
 * group-commit writer and its named insert, keys and their revocation, idempotency, webhooks (outbox,
 * pump, lock order, a crash-and-restart child), Agenda jobs, analytics rollups, audit, policies and
 * their backtests, identity, organization purge, legacy quota, evidence, the CLI, several processes
 * and `--cluster` on one database, and PgBouncer's own checks. The restore drill (pg_dump) and the
 * tests that stop PostgreSQL stay on the direct URL (`directDatabaseUrl`; test/reliability is not run here).
 */
export const PGBOUNCER_FILES = [
  'test/integration/pgbouncer.test.ts',
  'test/integration/scans-create.test.ts',
  'test/integration/scans-read.test.ts',
  'test/integration/scan-writer-batching.test.ts',
  'test/integration/scan-stream.test.ts',
  'test/integration/api-keys-authentication.test.ts',
  'test/integration/api-keys-revoke-rotate.test.ts',
  'test/integration/idempotency-principal.test.ts',
  'test/integration/webhooks-deliveries.test.ts',
  'test/integration/webhooks-delivery-failures.test.ts',
  'test/integration/webhooks-lock-order.test.ts',
  'test/integration/webhook-restart.test.ts',
  'test/integration/jobs.test.ts',
  'test/integration/evidence-expiry-job.test.ts',
  'test/integration/analytics-rollup.test.ts',
  'test/integration/audit-recording.test.ts',
  'test/integration/audit-pages.test.ts',
  'test/integration/policies-crud.test.ts',
  'test/integration/policies-backtest.test.ts',
  'test/integration/identity-sessions.test.ts',
  'test/integration/org-purge.test.ts',
  'test/integration/legacy-quota.test.ts',
  'test/integration/redaction-policy.test.ts',
  'test/integration/cli-api.test.ts',
  'test/integration/cross-process.test.ts',
  'test/integration/cluster.test.ts',
  'test/integration/secret-check.test.ts',
  'test/integration/api-keys-create.test.ts',
  'test/integration/api-keys-list.test.ts',
  'test/integration/audit-csv.test.ts',
  'test/integration/analytics-answers.test.ts',
  'test/integration/labeled-events-append.test.ts',
  'test/integration/redteam-create.test.ts',
  'test/integration/redteam-finalize.test.ts',
  'test/integration/evidence-uploads.test.ts',
  'test/integration/identity-invites-accept.test.ts',
  'test/integration/identity-members-changes.test.ts',
  'test/integration/legacy-analyses.test.ts',
  'test/integration/policies-decide-scans.test.ts',
  'test/integration/startup-stop.test.ts',
];

// Read by the global setup (which starts PgBouncer) and inherited by every test process and the
// services they start: set here so that any way of running this config gets them.
process.env.TEST_PGBOUNCER = '1';
process.env.DATABASE_POOLER = 'transaction';

// Not mergeConfig: it would append these files to the base config's include instead of replacing it.
export default defineConfig({ ...base, test: { ...base.test, include: PGBOUNCER_FILES } });
