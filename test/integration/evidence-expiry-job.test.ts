/**
 * The expire-evidence-uploads job: an upload never verified whose URL expired over an hour ago goes,
 * with whatever bytes arrived; verified and recent uploads stay.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as expireEvidenceUploads from '../../jobs/expire-evidence-uploads.ts';
import { ManualClock } from '../../lib/clock.ts';
import { createLogger } from '../../lib/logger.ts';
import { buildOrg, isolatedDatabase, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { createUpload, evidence, localPath, putLocal } from './evidence-fixture.ts';

const clock = new ManualClock(new Date());
const dataDir = mkdtempSync(path.join(tmpdir(), 'cf-evidence-job-'));
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  // a database of its own: the job spans organizations, and other files' uploads must neither count nor go
  app = await startTestApp({
    clock,
    env: { DATABASE_URL: await isolatedDatabase(), DATA_DIR: dataDir, RETENTION_BATCH_SIZE: '1' },
  });
  org = await buildOrg(app);
});
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const fileOf = (key: string) => path.join(dataDir, 'evidence', org.orgId, key);
const keysLeft = async () =>
  (await app.db.query('SELECT storage_key FROM evidence_uploads WHERE org_id = $1', [org.orgId])).rows
    .map((r) => r.storage_key as string)
    .sort();

describe('expire-evidence-uploads', () => {
  it('deletes abandoned uploads and their stray bytes, in batches; keeps verified and recent ones', async () => {
    const verified = evidence(32);
    const a = await createUpload(app, org.admin, verified.body);
    expect((await putLocal(app, localPath(a.body.upload_url), verified.bytes)).status).toBeLessThan(300);
    const abandoned: string[] = [];
    for (let i = 0; i < 3; i++) {
      const b = await createUpload(app, org.admin, evidence(32).body);
      abandoned.push(b.body.storage_key);
      // bytes a backend kept without their check passing (an S3 object never completed)
      mkdirSync(path.dirname(fileOf(b.body.storage_key)), { recursive: true });
      writeFileSync(fileOf(b.body.storage_key), 'partial');
    }
    clock.advance(15 * 60_000 + 3_600_000 + 1_000);
    const recent = await createUpload(app, org.admin, evidence(32).body);

    const ctx = {
      db: app.db,
      clock,
      logger: createLogger('silent'),
      metrics: app.built.services.metrics,
      config: app.config,
      touch: async () => undefined,
    };
    expect(await expireEvidenceUploads.run(ctx)).toBe(3);
    expect(await keysLeft()).toEqual([a.body.storage_key, recent.body.storage_key].sort());
    for (const key of abandoned) expect(existsSync(fileOf(key))).toBe(false);
    expect(existsSync(fileOf(a.body.storage_key))).toBe(true);
    expect(await expireEvidenceUploads.run(ctx)).toBe(0);
  });
});
