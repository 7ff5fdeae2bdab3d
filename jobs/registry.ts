import * as cleanupIdempotencyKeys from './cleanup-idempotency-keys.ts';
import * as expireEvidenceUploads from './expire-evidence-uploads.ts';
import * as expireScanContent from './expire-scan-content.ts';
import * as finishOrganizationDeletions from './finish-organization-deletions.ts';
import * as pruneWebhookDeliveries from './prune-webhook-deliveries.ts';
import * as rollupAnalytics from './rollup-analytics.ts';
import type { JobModule } from './job.ts';

/** Every scheduled job, listed explicitly: adding one = a `jobs/<verb-noun>.ts` module + a line here + docs/jobs.md. */
export const JOBS: readonly JobModule[] = [
  expireScanContent,
  cleanupIdempotencyKeys,
  pruneWebhookDeliveries,
  finishOrganizationDeletions,
  expireEvidenceUploads,
  rollupAnalytics,
];
