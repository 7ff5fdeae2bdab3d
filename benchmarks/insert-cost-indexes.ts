/**
 * The index sets benchmarks/insert-cost.ts compares: SQL run on a freshly migrated database.
 * `before-0016` restores the audit kind index migration 0016 replaced; `no-secondary` drops every
 * index but the primary keys: what the indexes cost at most (no query could use it);
 * `scans-action-partial` is a what-if, not shipped: the scans action index without allowed scans.
 */
export interface IndexSet {
  sql: readonly string[];
}

export const INDEX_SETS: Record<string, IndexSet> = {
  migrated: { sql: [] },
  'before-0016': {
    sql: [
      'DROP INDEX audit_events_org_management_idx',
      'CREATE INDEX audit_events_org_kind_idx ON audit_events (org_id, kind, id DESC)',
    ],
  },
  'scans-action-partial': {
    sql: [
      'DROP INDEX scans_org_action_idx',
      "CREATE INDEX scans_org_action_idx ON scans (org_id, action, id) WHERE action <> 'allowed'",
    ],
  },
  'no-secondary': {
    sql: [
      `DO $$ DECLARE i record; BEGIN
         FOR i IN SELECT indexrelid::regclass AS idx FROM pg_index
                  WHERE indrelid IN ('scans'::regclass, 'audit_events'::regclass) AND NOT indisprimary
         LOOP EXECUTE format('DROP INDEX %s', i.idx); END LOOP;
       END $$`,
    ],
  },
};
