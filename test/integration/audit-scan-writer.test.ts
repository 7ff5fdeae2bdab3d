// The group-commit scan writer (store/scan-writer.ts): each scan committed with its audit event.
import { describe, expect, it } from 'vitest';
import { newTimedId } from '../../lib/ids.ts';
import { ScanWriter } from '../../store/scan-writer.ts';
import type { ScanRow } from '../../store/scans.ts';
import { buildOrg, call } from '../support/harness.ts';
import { app, T, useAuditApp } from './audit-fixture.ts';

useAuditApp({ trail: false });

describe('the group-commit writer', () => {
  it('commits each scan with its event, and a failing row takes only its own event down', async () => {
    const o = await buildOrg(app, 'Writer');
    const writer = new ScanWriter(app.db, { maxBatch: 10, maxConcurrent: 1, detectionEvents: 'all' });
    const row = (id: string): ScanRow => ({
      org_id: o.orgId,
      id,
      created_at: new Date(T(10)),
      kind: 'content',
      surface: 'user_message',
      tier: 'fast',
      agent_id: 'writer',
      session_id: null,
      mcp_server: null,
      trace_id: null,
      end_user_id_hash: null,
      action: 'warned',
      decision: {
        action: 'warned',
        reason: 'score_threshold',
        policy_id: null,
        policy_revision_id: null,
        matched_rule_id: null,
        triggering_finding: 'pii:EMAIL_ADDRESS',
      },
      findings: [
        {
          detector: 'pii',
          items: [],
          frameworks: { owasp_agentic: [], owasp_llm: ['LLM02:2025'], mitre_atlas: ['AML.T0057'] },
        },
      ],
      scores: { pii: 0.6 },
      content_stored: false,
      content: null,
      content_expires_at: null,
      content_chars: 1,
      latency_ms: 1,
      api_key_id: o.adminId,
      request_id: null,
      mcp_tools: null,
      observed_action: null,
    });
    const existing = newTimedId('scan', Date.parse(T(10)));
    await writer.write(row(existing));
    const ids = [newTimedId('scan', Date.parse(T(10))), existing, newTimedId('scan', Date.parse(T(10)))];
    const results = await Promise.allSettled(ids.map((id) => writer.write(row(id))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rows } = await app.db.query(
      `SELECT scan_id, count(*)::int AS n FROM audit_events WHERE org_id = $1 AND kind = 'detection' GROUP BY scan_id`,
      [o.orgId],
    );
    expect(Object.fromEntries(rows.map((r) => [r.scan_id, r.n]))).toEqual({
      [ids[0]!]: 1,
      [existing]: 1,
      [ids[2]!]: 1,
    });
    const [e] = (await call(app, 'GET', `/v1/audit-events?kind=detection&limit=1`, { key: o.admin })).body.data;
    expect(e).toMatchObject({
      agent_id: 'writer',
      detector: 'pii',
      score: 0.6,
      action: 'warned',
      owasp_tags: ['LLM02:2025'],
      mitre_tags: ['AML.T0057'],
      enforced: true,
      created: T(10),
    });
  });

  it('records an observe-mode scan with its would-be action, not enforced', async () => {
    const o = await buildOrg(app, 'Observer');
    const writer = new ScanWriter(app.db, { maxBatch: 10, maxConcurrent: 1 });
    const id = newTimedId('scan', Date.parse(T(11)));
    await writer.write({
      org_id: o.orgId,
      id,
      created_at: new Date(T(11)),
      kind: 'content',
      surface: 'user_message',
      tier: 'fast',
      agent_id: null,
      session_id: null,
      mcp_server: null,
      trace_id: null,
      end_user_id_hash: null,
      action: 'allowed',
      decision: {
        action: 'allowed',
        reason: 'observe',
        policy_id: null,
        policy_revision_id: null,
        matched_rule_id: null,
        triggering_finding: 'pii:US_SSN',
      },
      findings: [],
      scores: { pii: 0.99 },
      content_stored: false,
      content: null,
      content_expires_at: null,
      content_chars: 1,
      latency_ms: 1,
      api_key_id: o.adminId,
      request_id: null,
      mcp_tools: null,
      observed_action: 'blocked',
    });
    const [e] = (await call(app, 'GET', '/v1/audit-events?kind=detection', { key: o.admin })).body.data;
    expect(e).toMatchObject({ scan_id: id, action: 'blocked', enforced: false, detector: 'pii', score: 0.99 });
  });
});
