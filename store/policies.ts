import type { PolicyDocument, PolicyMode } from '../engine/policy.ts';
import type { Queryable } from './db.ts';

/** A policy as stored; `document` holds exactly what the API returns for the decision-making fields. */
export interface PolicyRow {
  org_id: string;
  id: string;
  revision_id: string;
  name: string;
  mode: PolicyMode;
  enabled: boolean;
  is_default: boolean;
  document: PolicyDocument;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'org_id, id, revision_id, name, mode, enabled, is_default, document, created_at, updated_at';

export async function insertPolicy(q: Queryable, p: PolicyRow): Promise<PolicyRow> {
  const { rows } = await q.query<PolicyRow>(
    `INSERT INTO policies (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      p.org_id,
      p.id,
      p.revision_id,
      p.name,
      p.mode,
      p.enabled,
      p.is_default,
      JSON.stringify(p.document),
      p.created_at,
      p.updated_at,
    ],
  );
  return rows[0]!;
}

/** Overwrites a policy (full replace); returns the new row, or null when it does not exist. */
export async function replacePolicy(q: Queryable, p: PolicyRow): Promise<PolicyRow | null> {
  const { rows } = await q.query<PolicyRow>(
    `UPDATE policies SET revision_id = $3, name = $4, mode = $5, enabled = $6, is_default = $7, document = $8, updated_at = $9
     WHERE org_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [p.org_id, p.id, p.revision_id, p.name, p.mode, p.enabled, p.is_default, JSON.stringify(p.document), p.updated_at],
  );
  return rows[0] ?? null;
}

export async function getPolicy(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<PolicyRow | null> {
  const { rows } = await q.query<PolicyRow>(
    `SELECT ${COLUMNS} FROM policies WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** The organization's default policy (enabled or not), or null. */
export async function getDefaultPolicy(q: Queryable, orgId: string): Promise<PolicyRow | null> {
  const { rows } = await q.query<PolicyRow>(`SELECT ${COLUMNS} FROM policies WHERE org_id = $1 AND is_default`, [
    orgId,
  ]);
  return rows[0] ?? null;
}

/** Clears the default flag of every policy of the organization but `keepId`; returns the ids it cleared. */
export async function clearDefault(q: Queryable, orgId: string, keepId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    'UPDATE policies SET is_default = false WHERE org_id = $1 AND is_default AND id <> $2 RETURNING id',
    [orgId, keepId],
  );
  return rows.map((r) => r.id);
}

/** One page of the organization's policies, newest first. */
export async function listPolicies(
  q: Queryable,
  orgId: string,
  opts: { beforeId?: string | undefined; limit: number },
): Promise<PolicyRow[]> {
  const { rows } = await q.query<PolicyRow>(
    `SELECT ${COLUMNS} FROM policies WHERE org_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [orgId, opts.beforeId ?? null, opts.limit],
  );
  return rows;
}

/** Deletes a policy; returns the deleted row, or null when it did not exist. */
export async function deletePolicy(q: Queryable, orgId: string, id: string): Promise<PolicyRow | null> {
  const { rows } = await q.query<PolicyRow>(`DELETE FROM policies WHERE org_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [
    orgId,
    id,
  ]);
  return rows[0] ?? null;
}
