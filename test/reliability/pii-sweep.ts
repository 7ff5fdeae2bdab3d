/**
 * What the PII sweeps of stored writes share (pii-sweep-labeled, pii-sweep-redteam): an organization
 * whose policy hashes e-mails and SSNs, the positive control (a captured scan, whose random SSN the
 * sweeps must find), a hold on the WAL, and the sweep of every table and of the WAL since the hold,
 * which must find the control and nothing the test wrote.
 */
import { expect, onTestFinished } from 'vitest';
import type { Db } from '../../store/db.ts';
import { buildOrg, call, type TestApp, type TestOrg } from '../support/harness.ts';
import {
  canSweepWal,
  holdWal,
  randomPii,
  sweepTables,
  sweepWal,
  type TableSweep,
  type WalHold,
} from '../support/raw-sweep.ts';

/** A new organization under a policy that hashes e-mails and SSNs (other labels redacted). */
export async function buildHashingOrg(app: TestApp, name: string): Promise<TestOrg> {
  const org = await buildOrg(app, name);
  const policy = await call(app, 'PUT', '/v1/org/redaction-policy', {
    key: org.admin,
    json: {
      field_rules: { EMAIL_ADDRESS: 'hash', US_SSN: 'hash' },
      default_obfuscation: 'redact',
      override_allowed_for_reviewers: false,
      redaction_version: 'redactor-v1.0.0',
    },
  });
  expect(policy.status, policy.text.slice(0, 300)).toBe(200);
  return org;
}

/** A hold on the server's WAL from now to the end of the test, or null where this role may not read it. */
export async function holdWalForTest(db: Db): Promise<WalHold | null> {
  const wal = (await canSweepWal(db)) ? await holdWal(db) : null;
  onTestFinished(() => wal?.release());
  return wal;
}

/** What a sweep of the stored writes found. */
export interface StoredSweep {
  tables: TableSweep;
  wal: { bytes: number; found: string[] } | null;
}

/**
 * Scans a captured text holding a fresh SSN (the positive control), then sweeps every table and the
 * WAL held by `wal` for it and for `raw`: the control must be found (in `scans.content` and
 * `scans.findings`; in the WAL), no raw value anywhere.
 */
export async function sweepStoredWrites(
  app: TestApp,
  org: TestOrg,
  raw: readonly string[],
  wal: WalHold | null,
): Promise<StoredSweep> {
  const control = randomPii().ssn;
  const scan = await call(app, 'POST', '/v1/scans', {
    key: org.admin,
    json: {
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text: `My SSN is ${control}` },
      options: { capture: true, tier: 'fast' },
    },
  });
  expect(scan.status).toBe(201);
  const tables = await sweepTables(app.db, [...raw, control]);
  expect(tables.found).toEqual(['scans.content', 'scans.findings']);
  expect((await sweepTables(app.db, raw)).found).toEqual([]);
  const walSweep = wal === null ? null : await sweepWal(app.db, wal.since, [...raw, control]);
  if (walSweep) expect(walSweep.found).toEqual([control]);
  return { tables, wal: walSweep };
}

/** The figures of a sweep, for the suite's log line (the control's finds not counted). */
export function sweepFigures({ tables, wal }: StoredSweep): string {
  return (
    `tables: ${tables.tables} tables, ${tables.columns} text columns, ${tables.rows} rows, found ${tables.found.length - 2}; ` +
    (wal ? `WAL: ${wal.bytes} bytes, found ${wal.found.length - 1}` : 'WAL: not readable by this role')
  );
}
