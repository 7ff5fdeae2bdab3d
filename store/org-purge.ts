/**
 * Deleting everything an organization owns (issue 19, organization deletion): every row of every table
 * that has an `org_id` column — found in the schema, so a table added later is covered without a change
 * here — in batches, then the organization row. Tables are purged in foreign-key order (a table that
 * references another org-scoped table first); a table's references to itself (`api_keys.rotated_from`)
 * are cleared before its rows go. `NON_TENANT_TABLES` lists the tables that hold no organization's data;
 * test/integration/org-purge.test.ts fails on a table that is neither.
 *
 * The caller (services/org-lifecycle.ts) publishes the organization's id on the revocations bus first:
 * authenticators cache key lookups and session memberships.
 */
import type { Queryable } from './db.ts';

/** Tables without an `org_id` column that hold no tenant data (the organization row itself aside). */
export const NON_TENANT_TABLES: readonly string[] = [
  'organizations',
  'schema_migrations',
  'agenda_jobs',
  // the identity provider's ids of deleted organizations: what keeps a stale session from re-provisioning one
  'deleted_organizations',
  // the analytics rollup job's transaction-id watermark (one row, every organization's)
  'analytics_rollup_state',
  // the master secret's fingerprint (store/secret-check.ts: one row, the deployment's)
  'secret_check',
];

/** Rows deleted per statement: short statements, so a large organization never holds long locks. */
export const PURGE_BATCH_ROWS = 5_000;

interface ForeignKey {
  table: string;
  column: string;
  references: string;
  nullable: boolean;
}

/** The tables of the current schema that have an `org_id` column, in an order that respects foreign keys. */
export async function orgScopedTables(q: Queryable): Promise<{ tables: string[]; selfRefs: ForeignKey[] }> {
  const { rows } = await q.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'org_id'
      ORDER BY table_name`,
  );
  const tables = rows.map((r) => r.table_name);
  const { rows: fks } = await q.query<ForeignKey>(
    `SELECT c.conrelid::regclass::text AS table, a.attname AS column, c.confrelid::regclass::text AS references,
            NOT a.attnotnull AS nullable
       FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
      WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
  );
  const scoped = new Set(tables);
  const edges = fks.filter((f) => scoped.has(f.table) && scoped.has(f.references) && f.table !== f.references);
  // referencing tables before the tables they reference
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (t: string): void => {
    if (order.includes(t) || visiting.has(t)) return;
    visiting.add(t);
    for (const e of edges) if (e.references === t) visit(e.table);
    order.push(t);
  };
  for (const t of tables) visit(t);
  return { tables: order, selfRefs: fks.filter((f) => scoped.has(f.table) && f.table === f.references) };
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Deletes every row of `orgId` in every org-scoped table, then the organization. Each statement commits on
 * its own (a retry after a failure picks up where it stopped). Returns the rows deleted per table.
 * @throws when a self-reference is NOT NULL (it cannot be cleared before its rows go)
 */
export async function purgeOrgData(
  q: Queryable,
  orgId: string,
  batchRows = PURGE_BATCH_ROWS,
): Promise<Record<string, number>> {
  const { tables, selfRefs } = await orgScopedTables(q);
  const deleted: Record<string, number> = {};
  for (const f of selfRefs) {
    if (!f.nullable) throw new Error(`${f.table}.${f.column} references its own table and is NOT NULL`);
    await q.query(
      `UPDATE ${ident(f.table)} SET ${ident(f.column)} = NULL WHERE org_id = $1 AND ${ident(f.column)} IS NOT NULL`,
      [orgId],
    );
  }
  for (const table of tables) {
    let total = 0;
    for (;;) {
      const { rowCount } = await q.query(
        // (tableoid, ctid): a row's address, unique across the partitions of a partitioned table too
        `DELETE FROM ${ident(table)} WHERE org_id = $1
           AND (tableoid, ctid) IN (SELECT tableoid, ctid FROM ${ident(table)} WHERE org_id = $1 LIMIT $2)`,
        [orgId, batchRows],
      );
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < batchRows) break;
    }
    deleted[table] = total;
  }
  const { rowCount } = await q.query('DELETE FROM organizations WHERE id = $1', [orgId]);
  deleted.organizations = rowCount ?? 0;
  return deleted;
}
