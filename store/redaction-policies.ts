import type { Queryable } from './db.ts';

export type Obfuscation = 'redact' | 'hash' | 'pass_through';

/** One version of an organization's redaction policy: every replace inserts a row; the newest is in force. */
export interface RedactionPolicyRow {
  id: string;
  org_id: string;
  field_rules: Record<string, Obfuscation>;
  default_obfuscation: Obfuscation;
  override_allowed_for_reviewers: boolean;
  redaction_version: string;
  /** When the organization's first policy was set (carried forward to every later row). */
  created_at: Date;
  /** When this row was written. */
  updated_at: Date;
}

const COLUMNS =
  'id, org_id, field_rules, default_obfuscation, override_allowed_for_reviewers, redaction_version, created_at, updated_at';

/**
 * Serialises replaces of one organization's policy until the transaction ends (a transaction-level
 * advisory lock: no row is locked, so scans and other writers of the organization never wait on it).
 */
export async function lockRedactionPolicies(q: Queryable, orgId: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('redaction_policies:' || $1, 0))`, [orgId]);
}

/** The policy in force: the organization's newest row, or null when none was ever set. */
export async function currentRedactionPolicy(q: Queryable, orgId: string): Promise<RedactionPolicyRow | null> {
  const { rows } = await q.query<RedactionPolicyRow>(
    `SELECT ${COLUMNS} FROM redaction_policies WHERE org_id = $1 ORDER BY id DESC LIMIT 1`,
    [orgId],
  );
  return rows[0] ?? null;
}

/** One policy version by id (earlier versions stay: labeled events reference them). */
export async function getRedactionPolicy(q: Queryable, orgId: string, id: string): Promise<RedactionPolicyRow | null> {
  const { rows } = await q.query<RedactionPolicyRow>(
    `SELECT ${COLUMNS} FROM redaction_policies WHERE org_id = $1 AND id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

export async function insertRedactionPolicy(q: Queryable, row: RedactionPolicyRow): Promise<RedactionPolicyRow> {
  const { rows } = await q.query<RedactionPolicyRow>(
    `INSERT INTO redaction_policies (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      row.id,
      row.org_id,
      JSON.stringify(row.field_rules),
      row.default_obfuscation,
      row.override_allowed_for_reviewers,
      row.redaction_version,
      row.created_at,
      row.updated_at,
    ],
  );
  return rows[0]!;
}
