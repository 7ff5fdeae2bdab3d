// The group-commit writer's batching (store/scan-writer.ts) and its prepared statements (store/scans.ts).
import { describe, expect, it } from 'vitest';
import { newTimedId } from '../../lib/ids.ts';
import { ScanWriter } from '../../store/scan-writer.ts';
import type { ScanRow } from '../../store/scans.ts';
import { buildOrg } from '../support/harness.ts';
import { app, T, useAuditApp } from './audit-fixture.ts';

useAuditApp({ trail: false });

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function scan(orgId: string, action: 'allowed' | 'blocked'): ScanRow {
  return {
    org_id: orgId,
    id: newTimedId('scan', Date.parse(T(20))),
    created_at: new Date(T(20)),
    kind: 'content',
    surface: 'user_message',
    tier: 'fast',
    agent_id: 'batching',
    session_id: null,
    mcp_server: null,
    trace_id: null,
    end_user_id_hash: null,
    action,
    decision: {
      action,
      reason: action === 'allowed' ? 'below_thresholds' : 'score_threshold',
      policy_id: null,
      policy_revision_id: null,
      matched_rule_id: null,
      triggering_finding: action === 'allowed' ? null : 'prompt_injection:INJECTION',
    },
    findings: [],
    scores: { prompt_injection: action === 'allowed' ? 0.01 : 0.97 },
    content_stored: false,
    content: null,
    content_expires_at: null,
    content_chars: 10,
    latency_ms: 1,
    api_key_id: null,
    request_id: null,
    mcp_tools: null,
    observed_action: null,
  };
}

async function stored(orgId: string): Promise<{ scans: number; events: number }> {
  const { rows } = await app.db.query<{ scans: number; events: number }>(
    `SELECT (SELECT count(*)::int FROM scans WHERE org_id = $1) AS scans,
            (SELECT count(*)::int FROM audit_events WHERE org_id = $1 AND kind = 'detection') AS events`,
    [orgId],
  );
  return rows[0]!;
}

describe('the group-commit writer batches', () => {
  it('writes the rows of one turn of the event loop as one batch', async () => {
    const o = await buildOrg(app, 'Batch one turn');
    const batches: number[] = [];
    const writer = new ScanWriter(app.db, { maxBatch: 256, maxConcurrent: 4, onBatch: (n) => batches.push(n) });
    await Promise.all(Array.from({ length: 20 }, (_, i) => writer.write(scan(o.orgId, i % 4 ? 'allowed' : 'blocked'))));
    expect(batches).toEqual([20]);
    expect(await stored(o.orgId)).toEqual({ scans: 20, events: 5 });
  });

  it('keeps rows that arrive while a batch is in flight for the next one, unless the queue is deep', async () => {
    const o = await buildOrg(app, 'Batch in flight');
    const batches: number[] = [];
    const writer = new ScanWriter(app.db, {
      maxBatch: 256,
      maxConcurrent: 4,
      rowsPerExtraBatch: 8,
      onBatch: (n) => batches.push(n),
    });
    const first = writer.write(scan(o.orgId, 'allowed'));
    await nextTurn(); // the first batch is now in flight
    const shallow = Array.from({ length: 5 }, () => writer.write(scan(o.orgId, 'allowed')));
    await Promise.all([first, ...shallow]);
    expect(batches).toEqual([1, 5]);

    batches.length = 0;
    const again = writer.write(scan(o.orgId, 'allowed'));
    await nextTurn();
    // 8 waiting rows: a second batch starts beside the one in flight.
    const deep = Array.from({ length: 8 }, () => writer.write(scan(o.orgId, 'allowed')));
    await Promise.all([again, ...deep]);
    expect(batches.sort((a, b) => a - b)).toEqual([1, 8]);
    expect(await stored(o.orgId)).toEqual({ scans: 15, events: 0 });
  });

  it('alternates batch shapes (with and without detection events) on the same connections', async () => {
    const o = await buildOrg(app, 'Batch shapes');
    const writer = new ScanWriter(app.db, { maxBatch: 256, maxConcurrent: 1 });
    for (const action of ['allowed', 'blocked', 'allowed', 'blocked', 'blocked', 'allowed'] as const) {
      await writer.write(scan(o.orgId, action));
    }
    expect(await stored(o.orgId)).toEqual({ scans: 6, events: 3 });
  });
});
