// Audit events: what a non-allowed scan and an API key's create and revoke record.
import { describe, expect, it } from 'vitest';
import {
  allowedScan,
  app,
  audit,
  createdKeyId,
  createdKeySecret,
  FIELDS,
  injectionScan,
  nastyScan,
  org,
  ssnScan,
  T,
  useAuditApp,
  walk,
  type Event,
} from './audit-fixture.ts';

useAuditApp();

describe('detection events (AUDIT_DETECTION_EVENTS=non_allowed, the default)', () => {
  it('the scans were decided as the test assumes', () => {
    expect(ssnScan.decision.action).not.toBe('allowed');
    expect(injectionScan.decision.action).not.toBe('allowed');
    expect(nastyScan.decision.action).not.toBe('allowed');
  });

  it('records one event per non-allowed scan and none for the allowed one', async () => {
    const r = await audit('?kind=detection');
    expect(r.status).toBe(200);
    expect(r.body.data.map((e: Event) => e.scan_id)).toEqual([nastyScan.id, injectionScan.id, ssnScan.id]);
    expect(r.body.data.map((e: Event) => e.scan_id)).not.toContain(allowedScan.id);
    expect(r.body.next_cursor).toBeNull();
  });

  it('carries the scan, its decision and the triggering detector with its framework tags', async () => {
    const r = await audit('?kind=detection&agent_id=agent-a');
    expect(r.body.data).toHaveLength(1);
    const e = r.body.data[0];
    expect(Object.keys(e)).toEqual(FIELDS);
    expect(e).toMatchObject({
      kind: 'detection',
      created: T(1),
      actor_id: org.adminId,
      request_id: 'req-audit-ssn',
      scan_id: ssnScan.id,
      agent_id: 'agent-a',
      session_id: 's-1',
      surface: 'user_message',
      detector: 'pii',
      action: ssnScan.decision.action,
      owasp_tags: ['LLM02:2025'],
      mitre_tags: ['AML.T0057'],
      resource_type: null,
      resource_id: null,
      change_summary: null,
      enforced: true,
    });
    expect(e.id).toMatch(/^aud_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(e.score).toBeGreaterThan(0);
    expect(e.score).toBeLessThanOrEqual(1);
    const { rows } = await app.db.query(`SELECT scores->'pii' AS score FROM scans WHERE org_id = $1 AND id = $2`, [
      org.orgId,
      ssnScan.id,
    ]);
    expect(e.score).toBe(rows[0].score);
  });

  it('tags a prompt injection with OWASP LLM + agentic ids and ATLAS ids', async () => {
    const [e] = (await audit('?detector=prompt_injection')).body.data;
    expect(e.scan_id).toBe(injectionScan.id);
    expect(e.owasp_tags).toEqual(expect.arrayContaining(['LLM01:2025', 'T6']));
    expect(e.mitre_tags).toEqual(expect.arrayContaining(['AML.T0051']));
  });
});

describe('management events', () => {
  it('API key create and revoke appear with a change summary and no secret', async () => {
    const r = await audit(`?resource_id=${createdKeyId}`);
    expect(r.body.data.map((e: Event) => [e.kind, e.created, e.resource_type, e.actor_id])).toEqual([
      ['management', T(5), 'api_key', org.adminId],
      ['management', T(4), 'api_key', org.adminId],
    ]);
    const [revoked, created] = r.body.data;
    expect(created.change_summary).toMatch(
      /^created live API key .*ops, \\"night\\" shift\\nkey.* with scopes \[scans:read\]/,
    );
    expect(created.request_id).toBe('req-audit-key');
    expect(revoked.change_summary).toMatch(/^revoked API key /);
    for (const e of r.body.data) {
      expect(e).toMatchObject({
        scan_id: null,
        agent_id: null,
        surface: null,
        detector: null,
        score: null,
        action: null,
        owasp_tags: [],
        mitre_tags: [],
        enforced: null,
      });
    }
    const everything = JSON.stringify(await walk('', 10_000));
    expect(everything).not.toContain(createdKeySecret);
    expect(everything).not.toContain(createdKeySecret.slice(8));
  });
});
